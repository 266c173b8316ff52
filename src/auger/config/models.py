"""From `provider/name` to a `Model` and a `Provider`, using settings and an injected env."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from auger.config.errors import ConfigError
from auger.llm.catalog import lookup, model_from_entry
from auger.llm.provider import APIS, Model, Provider


class ProviderConfig(msgspec.Struct, frozen=True):
    """How to reach one provider."""

    name: str
    api: str
    base_url: str
    api_key: str | None
    key_env: str | None
    headers: dict[str, str]
    models: dict[str, dict[str, Any]]
    script: str | None = None


BUILTIN: dict[str, dict[str, str]] = {
    "anthropic": {
        "api": "messages",
        "base_url": "https://api.anthropic.com",
        "api_key_env": "ANTHROPIC_API_KEY",
        "base_url_env": "ANTHROPIC_BASE_URL",
    },
    "openai": {
        "api": "responses",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "base_url_env": "OPENAI_BASE_URL",
    },
}


def choose_model(flag: str | None, env: Mapping[str, str], settings: Mapping[str, Any]) -> str:
    """`--model`, else `AUGER_MODEL`, else settings' `model`."""
    spec = flag or env.get("AUGER_MODEL") or settings.get("model")
    if not spec:
        raise ConfigError(
            "no model chosen — pass --model PROVIDER/NAME (e.g. anthropic/claude-sonnet-4-5), "
            'set AUGER_MODEL, or set "model" in settings.json'
        )
    if not isinstance(spec, str):
        raise ConfigError('"model" in settings must be a string like "anthropic/claude-sonnet-4-5"')
    return spec


def split_spec(spec: str) -> tuple[str, str]:
    """`provider/name` split in two (the name may itself contain slashes)."""
    provider, sep, name = spec.partition("/")
    if not sep or not provider or not name:
        raise ConfigError(
            f"model {spec!r} names no provider — write it as PROVIDER/NAME, "
            "e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5"
        )
    return provider, name


def provider_config(
    name: str, env: Mapping[str, str], settings: Mapping[str, Any]
) -> ProviderConfig:
    """How to reach provider `name`: a built-in one, or one declared in settings' `providers`."""
    declared = settings.get("providers") or {}
    if not isinstance(declared, dict):
        raise ConfigError('"providers" in settings must be an object of provider names')
    raw = dict(BUILTIN.get(name, {}))
    if name in declared:
        if not isinstance(declared[name], dict):
            raise ConfigError(f'settings "providers.{name}" must be an object')
        raw |= declared[name]
    if not raw:
        known = ", ".join(sorted(set(BUILTIN) | set(declared)))
        raise ConfigError(
            f"unknown provider {name!r} — use one of {known}, "
            f'or declare it under "providers" in settings.json'
        )
    api = raw.get("api")
    if api not in APIS:
        raise ConfigError(
            f'provider {name!r}: "api" must be one of {", ".join(APIS[:3])} (got {api!r})'
        )
    base_url = env.get(raw["base_url_env"], "") if "base_url_env" in raw else ""
    base_url = base_url or raw.get("base_url", "")
    if not base_url and api != "scripted":
        raise ConfigError(f'provider {name!r} has no "base_url" in settings')
    key_env = raw.get("api_key_env")
    api_key = raw.get("api_key") or (env.get(key_env) if key_env else None) or None
    return ProviderConfig(
        name=name,
        api=api,
        base_url=base_url,
        api_key=api_key,
        key_env=key_env,
        headers=dict(raw.get("headers") or {}),
        models=dict(raw.get("models") or {}),
        script=raw.get("script"),
    )


def resolve_model(spec: str, config: ProviderConfig) -> Model:
    """The `Model` for `spec`: settings' own entry for it, else the catalog's."""
    _, name = split_spec(spec)
    if name in config.models:
        return model_from_entry(config.name, name, config.api, config.models[name])
    return lookup(config.name, name, config.api)


def build_provider(config: ProviderConfig, transport: Any = None) -> Provider:
    """A provider for `config`; its wire-format module is imported only now."""
    needs_key = config.api in ("messages", "responses") or config.key_env is not None
    if needs_key and not config.api_key:
        var = config.key_env or "api_key"
        raise ConfigError(
            f"no API key for {config.name} — set {var}"
            + ("" if config.key_env else f' in settings "providers.{config.name}"')
        )
    if config.api == "scripted":
        return _scripted(config)
    if config.api == "messages":
        from auger.llm.anthropic import AnthropicProvider as cls
    elif config.api == "responses":
        from auger.llm.openai_responses import OpenAIResponsesProvider as cls
    else:
        from auger.llm.openai_chat import OpenAIChatProvider as cls
    return cls(
        config.name,
        config.base_url,
        config.api_key,
        key_env=config.key_env,
        headers=config.headers,
        transport=transport,
    )


def _scripted(config: ProviderConfig) -> Provider:
    import json
    from pathlib import Path

    from auger.llm.scripted import ScriptedProvider, reply_from_dict

    if not config.script:
        raise ConfigError(
            f'scripted provider {config.name!r} needs "script": a JSON file of replies'
        )
    path = Path(config.script).expanduser()
    try:
        replies = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot load script {path}: {exc}") from None
    return ScriptedProvider([reply_from_dict(r) for r in replies], name=config.name)
