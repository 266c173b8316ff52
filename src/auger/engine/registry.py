"""The one registry: everything extensions registered with one Runtime, read live by the bus
and the engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from auger.bus import Handler
from auger.events import EVENT_TYPES
from auger.records import PROVIDER_RECORDS, RUNTIME_RECORDS
from auger.session.context import CONTEXT_CLOSE, CONTEXT_OPEN
from auger.tools.base import Tool

EVENT_NAMES: frozenset[str] = frozenset(
    kind.type for kinds in (EVENT_TYPES, PROVIDER_RECORDS, RUNTIME_RECORDS) for kind in kinds
)
"""Every name `g.on` accepts: the extension events and every stream record type."""

PromptSection = Callable[[], str] | str


class Command(msgspec.Struct, frozen=True):
    """A `/name` command: `handler(ctx)` runs it."""

    name: str
    handler: Callable[..., Any]
    description: str = ""
    owner: str = ""


class ProviderFactory(msgspec.Struct, frozen=True):
    """A provider an extension added: `factory()` builds it; `models` are catalog-shaped."""

    name: str
    factory: Callable[[], Any]
    models: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)


class Registry(msgspec.Struct):
    """Handlers, tools, commands, prompt sections, providers, skill folders and MCP servers,
    in load order, with who registered each name."""

    handlers: dict[str, list[Handler]] = msgspec.field(default_factory=dict)
    tools: dict[str, Tool] = msgspec.field(default_factory=dict)
    commands: dict[str, Command] = msgspec.field(default_factory=dict)
    prompts: dict[str, PromptSection] = msgspec.field(default_factory=dict)
    providers: dict[str, ProviderFactory] = msgspec.field(default_factory=dict)
    skill_sources: list[Any] = msgspec.field(default_factory=list)
    owners: dict[str, str] = msgspec.field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    context: set[str] = msgspec.field(default_factory=set)
    """The prompt sections that go in the context message rather than the system prompt."""

    def copy(self) -> Registry:
        """A copy whose containers can change without touching this one."""
        return Registry(
            {k: list(v) for k, v in self.handlers.items()},
            dict(self.tools),
            dict(self.commands),
            dict(self.prompts),
            dict(self.providers),
            list(self.skill_sources),
            dict(self.owners),
            dict(self.mcp_servers),
            set(self.context),
        )

    def system_prompt(self) -> str:
        """The system prompt, assembled now from its named sections, in order."""
        return self._render(lambda name: name not in self.context)

    def context_text(self) -> str:
        """The context message (empty when no section has anything to say), assembled now."""
        text = self._render(lambda name: name in self.context)
        return f"{CONTEXT_OPEN}{text}{CONTEXT_CLOSE}" if text else ""

    def _render(self, chosen: Callable[[str], bool]) -> str:
        parts = []
        for name, section in self.prompts.items():
            if not chosen(name):
                continue
            text = section() if callable(section) else section
            if text:
                parts.append(text.strip())
        return "\n\n".join(parts)
