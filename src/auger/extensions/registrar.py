"""The registrar `g` an extension receives, and loading extensions into a registry."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, Unpack

import msgspec

from auger.engine.registry import Command, PromptSection, ProviderFactory, Registry
from auger.extensions.on import Subscriptions
from auger.extensions.source import ExtensionError, Source
from auger.llm.records import Record
from auger.records import NoticeLevel
from auger.tools.base import Tool, tool

if TYPE_CHECKING:
    from auger.engine.context import Context
    from auger.llm.provider import Provider

CommandHandler: TypeAlias = "Callable[[Context], Awaitable[None] | None]"
"""A `/name` command: `handler(ctx)`, plain or async."""


class McpServer(TypedDict, total=False):
    """An MCP server as `g.mcp` takes it: `command`, `args`, `env`, `cwd` (stdio) or `url`,
    `headers` (streamable HTTP)."""

    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str
    url: str
    headers: dict[str, str]


class Surroundings(msgspec.Struct, frozen=True):
    """What a registrar lends an extension: where it runs, its settings, and the roads for
    notices and records."""

    cwd: Path
    home: Path
    user_home: Path
    settings: Mapping[str, Any]
    notify: Callable[[str, NoticeLevel], None]
    emit: Callable[[Record], None]


class Registrar(Subscriptions):
    """What `extension(g)` receives: one per extension per Runtime (`g.on` is typed per event,
    in `Subscriptions`).

    What it registers lands in the registry the Runtime reads, also after loading: a handler,
    tool or command added later (say, once a server has started) takes effect at once.
    """

    def __init__(self, owner: str, into: Registry, around: Surroundings) -> None:
        self.owner = owner
        self._into = into
        self._around = around
        self._defaults: dict[str, Any] = {}

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        return self._around.cwd

    @property
    def home(self) -> Path:
        """auger's home (`~/.auger`, or `AUGER_HOME`)."""
        return self._around.home

    @property
    def user_home(self) -> Path:
        """The user's home directory."""
        return self._around.user_home

    @property
    def skill_sources(self) -> list[Path]:
        """The skill folders extensions added with `g.skills`, in order."""
        return [Path(s) for s in self._into.skill_sources]

    def _claim(self, kind: str, name: str) -> None:
        key = f"{kind}:{name}"
        previous = self._into.owners.get(key)
        if previous is not None and previous != self.owner:
            self._around.notify(
                f"Extension {self.owner} replaces {kind} {name} from {previous}", "info"
            )
        self._into.owners[key] = self.owner

    def tool(
        self,
        fn: Tool | Callable[..., object],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
    ) -> Tool:
        """Add a tool: a `Tool`, or a function whose schema comes from its hints and docstring
        (`name`, `description` and `parameters` override what they would give).

        A tool of the same name is replaced in place, and the replacement is reported.
        """
        made = (
            fn
            if isinstance(fn, Tool)
            else tool(fn, name=name, description=description, parameters=parameters)
        )
        self._claim("tool", made.name)
        self._into.tools[made.name] = made
        return made

    def remove_tool(self, name: str) -> None:
        """Withdraw a tool this extension registered (nothing when it has none of that name);
        the model stops seeing it from the next turn on."""
        if self._into.owners.get(f"tool:{name}") == self.owner:
            self._into.tools.pop(name, None)

    def command(self, name: str, handler: CommandHandler, description: str = "") -> None:
        """Add a `/name` command; `handler(ctx)` may be async."""
        name = name.lstrip("/")
        self._claim("command", name)
        self._into.commands[name] = Command(name, handler, description, self.owner)

    def has_command(self, name: str) -> bool:
        """Whether a `/name` command is registered already."""
        return name.lstrip("/") in self._into.commands

    def prompt(self, name: str, section: PromptSection, *, context: bool = False) -> None:
        """Add a system-prompt section (text, or a function rendered at each user turn).

        With `context=True` the section is about this project or this day (the working
        directory, AGENTS.md, the skills): it goes in the context message sent after the tools,
        so the system prompt stays the same bytes in every project and every cache can reuse it.
        """
        self._claim("prompt section", name)
        self._into.prompts[name] = section
        if context:
            self._into.context.add(name)
        else:
            self._into.context.discard(name)

    def provider(
        self,
        name: str,
        factory: Callable[[], Provider],
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

    def mcp(self, name: str, **server: Unpack[McpServer]) -> None:
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
        own = self._around.settings.get(self.owner)
        return self._defaults | (own if isinstance(own, dict) else {})

    def emit(self, record: Record) -> None:
        """Send a record of your own to the stream."""
        self._around.emit(record)

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """Tell the user something."""
        self._around.notify(message, level)


def load_extensions(
    sources: Sequence[Source], base: Registry, around: Surroundings, disabled: frozenset[str]
) -> tuple[Registry, list[str]]:
    """Run every source's `extension(g)` over a copy of `base`, in order.

    An extension whose loading fails is skipped whole (its partial registrations are dropped)
    and its failure is returned; the others load.
    """
    current = base.copy()
    failures: list[str] = []
    loaded: list[Registrar] = []
    for source in sources:
        if source.name in disabled:
            continue
        staged = current.copy()
        registrar = Registrar(source.name, staged, around)
        try:
            extension = source.load()
            if inspect.iscoroutinefunction(extension):
                raise ExtensionError("extension(g) is async; it must be a plain function")
            extension(registrar)
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
