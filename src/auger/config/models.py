"""From `provider/name` to a `Model` and a `Provider`, using settings and an injected env."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from auger.config.credentials import load_signin
from auger.config.errors import ConfigError, MissingKey
from auger.config.providers import BUILTIN, with_local_defaults
from auger.llm.catalog import Ambiguous, Retired, find, lookup, model_from_entry
from auger.llm.formats import API_NAMES, ApiName, Endpoint, WireFormat, wire_format
from auger.llm.provider import Model, Provider


class ProviderConfig(msgspec.Struct, frozen=True):
    """How to reach one provider: its wire format and the endpoint its class is built from."""

    name: str
    api: ApiName
    base_url: str
    api_key: str | None
    key_env: str | None
    headers: dict[str, str]
    models: dict[str, dict[str, Any]]
    script: str | None = None
    compat: dict[str, Any] = msgspec.field(default_factory=dict)
    model_defaults: dict[str, Any] = msgspec.field(default_factory=dict)
    """The entry of a model neither settings nor the catalog list (a local GGUF's window)."""
    signin: str | None = None
    """The sign-in that authorises this provider's requests (in place of an API key)."""
    signin_urls: dict[str, str] = msgspec.field(default_factory=dict)
    cache: dict[str, Any] = msgspec.field(default_factory=dict)
    """Settings' `cache` object (TTL, retention), for the formats that place cache marks."""

    @property
    def format(self) -> WireFormat:
        """The row of the wire-format table this provider speaks."""
        fmt = wire_format(self.api)
        assert fmt is not None  # checked when the config was made
        return fmt

    def endpoint(self) -> Endpoint:
        """What the provider class is built from."""
        return Endpoint(
            self.name,
            self.base_url,
            self.api_key,
            self.key_env,
            self.headers,
            self.compat,
            self.script,
            cache=self.cache,
        )


def choose_model(flag: str | None, env: Mapping[str, str], settings: Mapping[str, Any]) -> str:
    """`--model`, else `AUGER_MODEL`, else settings' `model`."""
    spec = flag or env.get("AUGER_MODEL") or settings.get("model")
    if not spec:
        raise ConfigError(
            "no model chosen — pass --model PROVIDER/NAME (e.g. anthropic/claude-sonnet-5-5), "
            'set AUGER_MODEL, or set "model" in settings.json'
        )
    if not isinstance(spec, str):
        raise ConfigError('"model" in settings must be a string like "anthropic/claude-sonnet-5-5"')
    return spec if "/" in spec else _bare(spec, settings)


def _declared(settings: Mapping[str, Any]) -> list[str]:
    providers = settings.get("providers")
    out: list[str] = []
    for provider, config in providers.items() if isinstance(providers, dict) else ():
        models = config.get("models") if isinstance(config, dict) else None
        out += [f"{provider}/{name}" for name in models] if isinstance(models, dict) else []
    return out


def _bare(name: str, settings: Mapping[str, Any]) -> str:
    """A model named without its provider: by alias or unique match (`sonnet`, `gpt-5`)."""
    try:
        found = find(name, _declared(settings))
    except Ambiguous as exc:
        raise ConfigError(
            f"model {name!r} is ambiguous — did you mean one of: {', '.join(exc.candidates)}"
        ) from None
    except Retired as exc:
        raise ConfigError(f"model {exc}") from None
    return found or name


def split_spec(spec: str) -> tuple[str, str]:
    """`provider/name` split in two (the name may itself contain slashes)."""
    provider, sep, name = spec.partition("/")
    if not sep or not provider or not name:
        raise ConfigError(
            f"model {spec!r} names no provider — write it as PROVIDER/NAME, "
            "e.g. anthropic/claude-sonnet-5-5 or openai/gpt-5"
        )
    return provider, name


def _row(name: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    declared = settings.get("providers") or {}
    if not isinstance(declared, dict):
        raise ConfigError('"providers" in settings must be an object of provider names')
    raw = dict(BUILTIN.get(name, {}))
    if name in declared:
        if not isinstance(declared[name], dict):
            raise ConfigError(f'settings "providers.{name}" must be an object')
        own = declared[name]
        if own.get("api", raw.get("api")) != raw.get("api"):  # the row's compat was for its own
            raw["compat"] = (raw.get("compat_for") or {}).get(str(own["api"]), {})
        compat = {**raw.get("compat", {}), **(own.get("compat") or {})}
        raw |= own
        if compat:
            raw["compat"] = compat
    if not raw:
        known = ", ".join(sorted(set(BUILTIN) | set(declared)))
        raise ConfigError(
            f"unknown provider {name!r} — use one of {known}, "
            f'or declare it under "providers" in settings.json'
        )
    return raw


def provider_config(
    name: str, env: Mapping[str, str], settings: Mapping[str, Any], home: Path | None = None
) -> ProviderConfig:
    """How to reach provider `name`: a built-in one, or one declared in settings' `providers`.

    A provider signed in to (kept in `home/auth.json`) may name its own API and the models its
    account offers; the base-URL variable and settings win over them."""
    raw = _row(name, settings)
    kind = _kind(raw.get("signin"))
    signin = load_signin(home, kind.name) if kind is not None and home is not None else None
    if signin is not None:
        if isinstance(signin.get("api"), str) and "base_url" not in (
            (settings.get("providers") or {}).get(name) or {}
        ):
            raw["base_url"] = signin["api"]
        if isinstance(signin.get("models"), dict):
            raw["models"] = signin["models"] | dict(raw.get("models") or {})
    fmt = wire_format(raw.get("api"))
    if fmt is None:
        raise ConfigError(
            f'provider {name!r}: "api" must be one of {", ".join(API_NAMES)} '
            f"(got {raw.get('api')!r})"
        )
    base_url = env.get(raw["base_url_env"], "") if "base_url_env" in raw else ""
    base_url = base_url or _derived_url(name, raw.get("base_url_from") or {}, env)
    base_url = base_url or raw.get("base_url", "")
    if not base_url and fmt.url != "none":
        where = f"set {raw['base_url_env']}" if "base_url_env" in raw else ""
        hint = f" (e.g. {raw['base_url_hint']})" if "base_url_hint" in raw else ""
        hint += "".join(f", or {variable}" for variable in raw.get("base_url_from") or {})
        raise ConfigError(
            f"provider {name!r} has no base URL — "
            + (f"{where}{hint} or " if where else "")
            + f'set "base_url" in settings "providers.{name}"'
        )
    if base_url and fmt.url != "none":  # `none`: no HTTP (a local model's directory)
        _check_url(name, base_url)
    key_env = raw.get("api_key_env")
    api_key = raw.get("api_key") or (env.get(key_env) if key_env else None) or None
    compat = raw.get("compat") or {}
    if not isinstance(compat, dict):
        raise ConfigError(f'settings "providers.{name}.compat" must be an object')
    compat = {**compat, **{o: env[v] for o, v in fmt.compat_env.items() if env.get(v)}}
    return ProviderConfig(
        name=name,
        api=fmt.api,
        base_url=base_url,
        api_key=api_key,
        key_env=key_env,
        headers=dict(raw.get("headers") or {}),
        models=dict(raw.get("models") or {}),
        script=raw.get("script"),
        compat=with_local_defaults(fmt.api, base_url, dict(compat)),
        model_defaults=dict(raw.get("model_defaults") or {}),
        signin=kind.name if kind is not None else None,
        signin_urls=kind.urls(env) if kind is not None else {},
        cache=dict(settings.get("cache") or {}),
    )


def _kind(name: object) -> Any:
    if not name:
        return None
    from auger.config.signin import KINDS  # only for a signed-in provider

    if name not in KINDS:
        raise ConfigError(f'"signin" must be one of {", ".join(KINDS)} (got {name!r})')
    return KINDS[str(name)]


def _check_url(provider: str, url: str) -> None:
    """A base URL a request can go to: http or https, with a host; else a `ConfigError`."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is no number
    except ValueError as exc:
        raise ConfigError(f"provider {provider!r}: base URL {url!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"provider {provider!r}: base URL {url!r} must be an http:// or https:// URL "
            "with a host"
        )


_RESOURCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}")


def _derived_url(provider: str, templates: Mapping[str, str], env: Mapping[str, str]) -> str:
    """A base URL built from the first set variable of `templates` (variable -> URL with `{}`):
    an endpoint, or a resource name that must be one."""
    for variable, template in templates.items():
        value = env.get(variable, "").strip().rstrip("/")
        if not value:
            continue
        if not template.startswith("{}") and not _RESOURCE.fullmatch(value):
            raise ConfigError(f"provider {provider!r}: {variable} is not a resource name")
        return template.format(value)
    return ""


def resolve_model(spec: str, config: ProviderConfig) -> Model:
    """The `Model` for `spec`: settings' own entry for it, else the catalog's."""
    _, name = split_spec(spec)
    if name in config.models:
        entry = config.model_defaults | config.models[name]
        return model_from_entry(config.name, name, config.api, entry)
    if config.model_defaults:
        return model_from_entry(config.name, name, config.api, config.model_defaults)
    try:
        return lookup(config.name, name, config.api)
    except Retired as exc:
        raise ConfigError(f"model {exc}") from None


def build_provider(
    config: ProviderConfig, transport: Any = None, home: Path | None = None
) -> Provider:
    """A provider for `config`; its wire-format module is imported only now. A signed-in
    provider's requests carry the sign-in kept in `home/auth.json`, renewed as it expires."""
    fmt = config.format
    endpoint = config.endpoint()
    if config.signin is not None:
        endpoint = msgspec.structs.replace(endpoint, auth=_signed_in(config, transport, home))
    elif (fmt.needs_key or config.key_env is not None) and not config.api_key:
        var = config.key_env or "api_key"
        raise MissingKey(
            f"no API key for {config.name} — set {var}"
            + ("" if config.key_env else f' in settings "providers.{config.name}"')
        )
    try:
        return fmt.build(endpoint, transport)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _signed_in(config: ProviderConfig, transport: Any, home: Path | None) -> Any:
    from auger.config.signin import KINDS
    from auger.config.signin.session import SignedIn
    from auger.llm.transport import HttpTransport

    kind = KINDS[str(config.signin)]
    if home is None or load_signin(home, kind.name) is None:
        raise ConfigError(f"not signed in to {config.name} — run: auger login {kind.name}")
    return SignedIn(kind, home, config.signin_urls, transport or HttpTransport())
