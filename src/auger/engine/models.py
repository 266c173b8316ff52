"""Choosing the model and its provider: asked for, a restored session's, or configured."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.config.credentials import Warn, with_credentials
from auger.config.errors import ConfigError, MissingKey
from auger.config.http import transport_from
from auger.config.models import (
    ProviderConfig,
    build_provider,
    choose_model,
    provider_config,
    resolve_model,
    split_spec,
)
from auger.engine.registry import Registry
from auger.engine.state import AgentState
from auger.llm.catalog import lookup, model_from_entry
from auger.llm.provider import Model, Provider
from auger.session.context import last_model
from auger.session.store import SessionFile

if TYPE_CHECKING:
    from auger.llm.transport import HttpTransport


class ModelResolver:
    """Turns `provider/name` into a model and a provider, with the keys and settings given
    (and the providers extensions registered)."""

    def __init__(
        self, env: Mapping[str, str], home: Path, settings: Mapping[str, Any], warn: Warn
    ) -> None:
        self._env = env
        self._home = home
        self._settings = settings
        self._unread: list[str] = []  # why auth.json's keys were not used, for a missing key

        def read_failed(message: str) -> None:
            self._unread.append(message)
            warn(message)

        self._keys = with_credentials(env, home, read_failed)

    def use(self, settings: Mapping[str, Any]) -> None:
        """Resolve with `settings` from now on (they were read again)."""
        self._settings = settings

    def refresh(self) -> None:
        """Read auth.json again (a key was saved or removed since)."""
        self._unread = []
        self._keys = with_credentials(self._env, self._home, self._unread.append)

    def choose(
        self,
        model: str | Model | None,
        provider: Provider | None,
        session: SessionFile,
        registry: Registry,
    ) -> tuple[tuple[Model, Provider], str | None]:
        """The model asked for; else a restored session's, when its provider can still be
        reached (else a notice says why not); else the configured one."""
        saved = None if model or provider else last_model(session.branch())
        if saved is not None:
            spec = "/".join(saved)
            try:
                return self.resolve(spec, None, registry), None
            except ConfigError as exc:
                notice = f"the session's model {spec} is not available ({exc})"
                return self.resolve(model, provider, registry), notice
        return self.resolve(model, provider, registry), None

    def resolve(
        self, model: str | Model | None, provider: Provider | None, registry: Registry
    ) -> tuple[Model, Provider]:
        """The model and provider for a spec (or a given model or provider)."""
        if isinstance(model, Model):
            return model, provider or self._provider_for(model.provider, registry)
        if provider is not None:
            name = (model or "").partition("/")[2] or model or "default"
            return lookup(provider.name, name, "scripted"), provider
        spec = choose_model(model, self._keys, self._settings)
        provider_name, name = split_spec(spec)
        added = registry.providers.get(provider_name)
        if added is not None:
            entry = added.models.get(name, {})
            return model_from_entry(provider_name, name, "extension", entry), added.factory()
        config = provider_config(provider_name, self._keys, self._settings, self._home)
        return resolve_model(spec, config), self._build(config)

    async def switch(self, state: AgentState, spec: str | Model) -> Model:
        """Talk to `spec` from the next model call on (the old provider is closed when it is
        replaced); raises `ConfigError` and changes nothing when it cannot be reached."""
        model, provider = self.resolve(spec, None, state.registry)
        old = state.provider
        state.use(model, provider)
        if old is not provider:
            await old.aclose()
        return model

    def _provider_for(self, name: str, registry: Registry) -> Provider:
        added = registry.providers.get(name)
        if added is not None:
            provider: Provider = added.factory()
            return provider
        config = provider_config(name, self._keys, self._settings, self._home)
        return self._build(config)

    def _build(self, config: ProviderConfig) -> Provider:
        """The provider; a missing key says too why auth.json's keys were not used."""
        try:
            return build_provider(config, self._transport(), self._home)
        except MissingKey as exc:
            if not self._unread:
                raise
            raise MissingKey(f"{exc}; {'; '.join(self._unread)}") from None

    def _transport(self) -> HttpTransport:
        """One HTTP path for every provider, with the proxies of the environment."""
        return transport_from(self._env, self._settings)
