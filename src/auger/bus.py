"""The chain rule of SPEC §2.1, implemented once for every event."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import msgspec

from auger.events import Event
from auger.llm.records import Record

Report = Callable[[str, str], None]


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


class Outcome(msgspec.Struct, frozen=True):
    """How a chain ended: the event as the handlers left it, and whether one returned `False`.

    `failure` is set when a `tool_call` handler raised: a guard that breaks blocks the call.
    """

    event: Any
    stopped: bool = False
    failure: str | None = None


class Bus:
    """Holds handlers by event name and runs them by the chain rule.

    `report(message, level)` receives the notices the rule calls for; `ctx` is what two-argument
    handlers receive as their second argument.
    """

    def __init__(self, report: Report, ctx: Any = None) -> None:
        self._handlers: dict[str, list[Handler]] = {}
        self._report = report
        self.ctx = ctx

    def add(self, name: str, handler: Handler) -> None:
        """Register `handler` for `name`, after the ones already there."""
        self._handlers.setdefault(name, []).append(handler)

    def replace_all(self, handlers: dict[str, list[Handler]]) -> None:
        """Swap every registration at once (used by reload)."""
        self._handlers = {k: list(v) for k, v in handlers.items() if v}

    def snapshot(self) -> dict[str, list[Handler]]:
        """A copy of the registrations."""
        return {k: list(v) for k, v in self._handlers.items()}

    def has(self, name: str) -> bool:
        """Whether anything listens to `name`."""
        return name in self._handlers

    async def observe(self, record: Record) -> None:
        """Deliver a stream record to its observe-only handlers."""
        if record.type in self._handlers:
            await self.emit(record.type, record)

    async def emit(self, name: str, event: Any) -> Outcome:
        """Run the handlers of `name` one at a time, in order, by the chain rule."""
        handlers = self._handlers.get(name)
        if not handlers:
            return Outcome(event)
        for handler in handlers:
            try:
                value = handler.fn(event, self.ctx) if handler.wants_ctx else handler.fn(event)
                if value is not None and inspect.isawaitable(value):
                    value = await value
            except Exception as exc:  # a handler's failure is reported, never propagated
                message = f"{name} handler failed: {exc}"
                self._report(message, "error")
                if name == "tool_call":
                    return Outcome(event, failure=message)
                continue
            if value is None:
                continue
            if value is False:
                return Outcome(event, stopped=True)
            changed = event.apply(value) if isinstance(event, Event) else None
            if changed is None:
                self._report(
                    f"{name} handler {handler.label} returned {type(value).__name__}, "
                    "which this event does not take; ignored",
                    "warning",
                )
                continue
            event = changed
            if changed.settled:
                break
        return Outcome(event)
