"""The registrar `g` an extension receives: the seams it may add to a Runtime."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from auger.bus import Handler
from auger.events import EVENT_TYPES
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

EVENT_NAMES: frozenset[str] = frozenset(
    [e.type for e in EVENT_TYPES]
    + [r.type for r in PROVIDER_RECORDS]
    + [
        r.type
        for r in (
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
    ]
)


class ExtensionError(Exception):
    """An extension could not be loaded."""


class Registrations(msgspec.Struct):
    """Everything extensions registered with one Runtime, in load order."""

    handlers: dict[str, list[Handler]] = msgspec.field(default_factory=dict)
    tools: dict[str, Tool] = msgspec.field(default_factory=dict)
    tool_owners: dict[str, str] = msgspec.field(default_factory=dict)
    prompts: dict[str, Callable[[], str] | str] = msgspec.field(default_factory=dict)


class Registrar:
    """What `extension(g)` receives: one per extension per Runtime."""

    def __init__(self, runtime: Runtime, owner: str, into: Registrations) -> None:
        self._runtime = runtime
        self.owner = owner
        self._into = into

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        """Handle `event` (SPEC §2); an unknown name fails the extension's load."""
        if event not in EVENT_NAMES:
            raise ExtensionError(
                f"unknown event {event!r}; valid events: {', '.join(sorted(EVENT_NAMES))}"
            )
        self._into.handlers.setdefault(event, []).append(Handler.of(handler, self.owner))

    def tool(self, fn: Tool | Callable[..., Any], **options: Any) -> Tool:
        """Add a tool (a `Tool`, or a function whose schema comes from its hints and docstring).

        A tool of the same name is replaced in place, and the replacement is reported.
        """
        made = fn if isinstance(fn, Tool) else tool(fn, **options)
        previous = self._into.tool_owners.get(made.name)
        if previous is not None and previous != self.owner:
            self._runtime.notify(
                f"Extension {self.owner} replaces tool {made.name} from {previous}", "info"
            )
        self._into.tools[made.name] = made
        self._into.tool_owners[made.name] = self.owner
        return made

    def prompt(self, name: str, section: Callable[[], str] | str) -> None:
        """Add a system-prompt section, re-rendered every turn."""
        self._into.prompts[name] = section

    def emit(self, record: Record) -> None:
        """Send a record of your own to the stream."""
        self._runtime.emit(record)

    def notify(self, message: str, level: str = "info") -> None:
        """Tell the user something."""
        self._runtime.notify(message, level)
