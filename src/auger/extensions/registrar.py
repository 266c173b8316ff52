"""The registrar `g` an extension receives, and loading extensions into a Runtime."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from auger.bus import Handler
from auger.events import EVENT_TYPES
from auger.extensions.source import ExtensionError, Source
from auger.llm.records import Record
from auger.records import (
    PROVIDER_RECORDS,
    AfterToolCall,
    BeforeToolCall,
    CommandOutput,
    Compact,
    JobExit,
    Notify,
    SessionEnd,
    SessionStart,
    SkillActivated,
    TurnEnd,
)
from auger.tools.base import Tool, tool

if TYPE_CHECKING:
    from auger.runtime import Runtime

RUNTIME_RECORDS = (
    SessionStart,
    SessionEnd,
    CommandOutput,
    SkillActivated,
    Notify,
    BeforeToolCall,
    AfterToolCall,
    JobExit,
    Compact,
    TurnEnd,
)
EVENT_NAMES: frozenset[str] = frozenset(
    [e.type for e in EVENT_TYPES]
    + [r.type for r in PROVIDER_RECORDS]
    + [r.type for r in RUNTIME_RECORDS]
)


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


class Registrations(msgspec.Struct):
    """Everything the extensions registered with one Runtime, in load order."""

    handlers: dict[str, list[Handler]] = msgspec.field(default_factory=dict)
    tools: dict[str, Tool] = msgspec.field(default_factory=dict)
    commands: dict[str, Command] = msgspec.field(default_factory=dict)
    prompts: dict[str, Callable[[], str] | str] = msgspec.field(default_factory=dict)
    providers: dict[str, ProviderFactory] = msgspec.field(default_factory=dict)
    skill_sources: list[Any] = msgspec.field(default_factory=list)
    owners: dict[str, str] = msgspec.field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)

    def copy(self) -> Registrations:
        """A copy whose containers can change without touching this one."""
        return Registrations(
            {k: list(v) for k, v in self.handlers.items()},
            dict(self.tools),
            dict(self.commands),
            dict(self.prompts),
            dict(self.providers),
            list(self.skill_sources),
            dict(self.owners),
            dict(self.mcp_servers),
        )


class Registrar:
    """What `extension(g)` receives: one per extension per Runtime."""

    def __init__(self, runtime: Runtime, owner: str, into: Registrations) -> None:
        self._runtime = runtime
        self.owner = owner
        self._into = into
        self._defaults: dict[str, Any] = {}

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        return self._runtime.cwd

    @property
    def home(self) -> Path:
        """auger's home (`~/.auger`, or `AUGER_HOME`)."""
        return self._runtime.home

    @property
    def user_home(self) -> Path:
        """The user's home directory."""
        return self._runtime.user_home

    @property
    def skill_sources(self) -> list[Path]:
        """The skill folders extensions added with `g.skills`, in order."""
        return [Path(s) for s in self._into.skill_sources]

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """Handle `event` (SPEC §2); an unknown name fails the extension's load."""
        if event not in EVENT_NAMES:
            raise ExtensionError(
                f"unknown event {event!r}; valid events: {', '.join(sorted(EVENT_NAMES))}"
            )
        self._into.handlers.setdefault(event, []).append(Handler.of(handler, self.owner))

    def _claim(self, kind: str, name: str) -> None:
        key = f"{kind}:{name}"
        previous = self._into.owners.get(key)
        if previous is not None and previous != self.owner:
            self._runtime.notify(f"Extension {self.owner} replaces {kind} {name} from {previous}")
        self._into.owners[key] = self.owner

    def tool(self, fn: Tool | Callable[..., Any], **options: Any) -> Tool:
        """Add a tool: a `Tool`, or a function whose schema comes from its hints and docstring.

        A tool of the same name is replaced in place, and the replacement is reported.
        """
        made = fn if isinstance(fn, Tool) else tool(fn, **options)
        self._claim("tool", made.name)
        self._into.tools[made.name] = made
        return made

    def command(self, name: str, handler: Callable[..., Any], description: str = "") -> None:
        """Add a `/name` command; `handler(ctx)` may be async."""
        name = name.lstrip("/")
        self._claim("command", name)
        self._into.commands[name] = Command(name, handler, description, self.owner)

    def prompt(self, name: str, section: Callable[[], str] | str) -> None:
        """Add a system-prompt section (text, or a function re-rendered every turn)."""
        self._claim("prompt section", name)
        self._into.prompts[name] = section

    def provider(
        self,
        name: str,
        factory: Callable[[], Any],
        models: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Add a provider: `--model name/…` then uses `factory()`; `models` gives their
        context windows and prices in the catalog's shape."""
        self._claim("provider", name)
        entries = {k: dict(v) for k, v in (models or {}).items()}
        self._into.providers[name] = ProviderFactory(name, factory, entries)

    def skills(self, source: str | Path) -> None:
        """Add a folder skills are found in (`<folder>/<name>/SKILL.md`)."""
        self._into.skill_sources.append(source)

    def mcp(self, name: str, **server: Any) -> None:
        """Add an MCP server: `command=`, `args=`, `env=` (stdio) or `url=`, `headers=`
        (streamable HTTP). Its tools become `NAME__tool`."""
        from auger.extensions.mcp import check_server

        try:
            checked = check_server(name, server)
        except ValueError as exc:
            raise ExtensionError(str(exc)) from None
        self._claim("MCP server", name)
        self._into.mcp_servers[name] = checked

    @property
    def mcp_servers(self) -> dict[str, dict[str, Any]]:
        """The MCP servers declared with `g.mcp` by this and earlier-loaded extensions."""
        return dict(self._into.mcp_servers)

    def setting(self, key: str, default: Any = None) -> Any:
        """Declare one of this extension's settings; returns its current value."""
        self._defaults[key] = default
        return self.settings.get(key, default)

    @property
    def settings(self) -> dict[str, Any]:
        """This extension's own namespace in settings (`{"<extension name>": {…}}`)."""
        own = self._runtime.settings.get(self.owner)
        return self._defaults | (own if isinstance(own, dict) else {})

    def emit(self, record: Record) -> None:
        """Send a record of your own to the stream."""
        self._runtime.emit(record)

    def notify(self, message: str, level: str = "info") -> None:
        """Tell the user something."""
        self._runtime.notify(message, level)


def load_extensions(
    runtime: Runtime, sources: Sequence[Source], base: Registrations
) -> tuple[Registrations, list[str]]:
    """Run every source's `extension(g)` over a copy of `base`, in order.

    An extension whose loading fails is skipped whole (its partial registrations are dropped)
    and its failure is returned; the others load.
    """
    disabled = runtime.disabled
    current = base.copy()
    failures: list[str] = []
    loaded: list[Registrar] = []
    for source in sources:
        if source.name in disabled:
            continue
        staged = current.copy()
        registrar = Registrar(runtime, source.name, staged)
        try:
            source.load()(registrar)
        except Exception as exc:  # any failure of any extension is isolated
            failures.append(f"Extension {source.name} failed to load: {exc}")
            continue
        current = staged
        loaded.append(registrar)
    for registrar in loaded:  # what an extension registers later lands in what is installed
        registrar._into = current
    return current, failures


def disabled_in(settings: Mapping[str, Any]) -> frozenset[str]:
    """The extension names settings disable (`"extensions": {"disabled": [...]}`)."""
    section = settings.get("extensions")
    names = section.get("disabled") if isinstance(section, dict) else None
    return (
        frozenset(n for n in names if isinstance(n, str))
        if isinstance(names, list)
        else frozenset()
    )
