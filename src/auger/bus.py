"""The chain rule of SPEC §2.1, implemented once for every event."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import msgspec

from auger.events import Event
from auger.llm.records import Record
from auger.records import NoticeLevel

Report = Callable[[str, NoticeLevel], None]
E = TypeVar("E", bound=Record)


class Handler(msgspec.Struct, frozen=True):
    """A registered handler: the callable, whether it takes `ctx`, and who registered it."""

    fn: Callable[..., Any]
    wants_ctx: bool
    owner: str

    @classmethod
    def of(cls, fn: Callable[..., Any], owner: str) -> Handler:
        """Wrap `fn`, deciding once whether it takes `(event)` or `(event, ctx)`."""
        try:
            params = [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
            ]
        except (TypeError, ValueError):
            params = []
        wants_ctx = len(params) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)
        return cls(fn, wants_ctx, owner)

    @property
    def label(self) -> str:
        """How a notice names this handler."""
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        return f"{name} ({self.owner})" if self.owner else name


class Outcome(msgspec.Struct, Generic[E], frozen=True):
    """How a chain ended: the event as the handlers left it, and whether one returned `False`.

    `failure` is set when a handler of a guard event raised: a guard that breaks blocks.
    """

    event: E
    stopped: bool = False
    failure: str | None = None


Handlers = Mapping[str, list[Handler]]


class Bus:
    """Runs the handlers of the registry it reads, by the chain rule.

    `handlers` is the registry's own mapping (read live, so a late `g.on` takes effect);
    `report(message, level)` receives the notices the rule calls for; `ctx` is what
    two-argument handlers receive as their second argument.
    """

    def __init__(self, handlers: Handlers, report: Report, ctx: Any = None) -> None:
        self._handlers = handlers
        self._report = report
        self.ctx = ctx

    def read(self, handlers: Handlers) -> None:
        """Read another registry from now on (an atomic swap, used by reload)."""
        self._handlers = handlers

    def has(self, kind: type[Record]) -> bool:
        """Whether anything listens to events of this class."""
        return bool(self._handlers.get(kind.type))

    async def emit(self, event: E) -> Outcome[E]:
        """Run the handlers of the event's type one at a time, in order, by the chain rule.

        A stream record is delivered the same way: it takes no return values, so any value
        but `None` or `False` draws the warning.
        """
        name = event.type
        handlers = self._handlers.get(name)
        if not handlers:
            return Outcome(event)
        for handler in list(handlers):
            try:
                value = handler.fn(event, self.ctx) if handler.wants_ctx else handler.fn(event)
                if value is not None and inspect.isawaitable(value):
                    value = await value
            except Exception as exc:  # a handler's failure is reported, never propagated
                message = f"{name} handler failed: {exc}"
                self._report(message, "error")
                if isinstance(event, Event) and event.guard:
                    return Outcome(event, failure=message)
                continue
            if value is None:
                continue
            if value is False:
                return Outcome(event, stopped=True)
            changed = event.apply(value) if isinstance(event, Event) else None
            if changed is None:
                takes = event.takes if isinstance(event, Event) else Event.takes
                self._report(
                    f"{name} handler {handler.label} returned {_shown(value)}, but {name} "
                    f"takes {takes}; ignored",
                    "warning",
                )
                continue
            event = changed  # type: ignore[assignment]
            if changed.settled:
                break
        return Outcome(event)


def _shown(value: Any) -> str:
    """A returned value as a warning names it: its type, and a short look at it."""
    try:
        text = repr(value)
    except Exception:  # a handler's own object may not even print
        return type(value).__name__
    return type(value).__name__ + (f" {text}" if len(text) <= 40 else f" {text[:37]}...")
