"""The chain rule of SPEC §2.1, implemented once for every event.

A plain (synchronous) handler runs in a worker thread while the event loop awaits it, so one
that never returns (`time.sleep(3600)` on `text_delta`) cannot hold the loop: a cancel (the
first Ctrl-C) or a closing timeout ends the wait at once and the turn goes on to its end; the
stuck thread is a daemon, left to finish on its own. The price is a thread hop per call
(about 20 µs, `bench/bench_dispatch.py`); a coroutine handler runs on the loop as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from auger.event import Event
from auger.llm.records import Record
from auger.records import NoticeLevel

if TYPE_CHECKING:
    import queue

Report = Callable[[str, NoticeLevel], None]
E = TypeVar("E", bound=Record)


class Handler(msgspec.Struct, frozen=True):
    """A registered handler: the callable, whether it takes `ctx`, and who registered it."""

    fn: Callable[..., object]
    wants_ctx: bool
    owner: str
    sync: bool = True

    @classmethod
    def of(cls, fn: Callable[..., object], owner: str) -> Handler:
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
        call = getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
        is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
        return cls(fn, wants_ctx, owner, not is_async)

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
        but `None` or `False` draws the warning. Consecutive plain handlers share one trip to
        a worker thread.
        """
        handlers = self._handlers.get(event.type)
        if not handlers:
            return Outcome(event)
        chain: _Chain[E] = _Chain(self, event, list(handlers))
        while chain.next < len(chain.handlers) and chain.outcome is None:
            handler = chain.handlers[chain.next]
            if handler.sync:
                try:
                    pending = await WORKERS.call(chain.walk, ())
                except BaseException:
                    chain.abandoned = True  # the rest of the walk is not run behind our back
                    raise
            else:
                chain.next += 1
                try:
                    pending = (handler, chain.call(handler))
                except (Exception, KeyboardInterrupt, SystemExit) as exc:
                    chain.failed(exc)
                    continue
            if pending is not None:
                await chain.settle(*pending)
        return chain.outcome or Outcome(chain.event)


class _Chain(Generic[E]):
    """One run of the chain rule over `handlers`: where it is, and how it ended."""

    def __init__(self, bus: Bus, event: E, handlers: list[Handler]) -> None:
        self.bus = bus
        self.event = event
        self.handlers = handlers
        self.next = 0
        self.outcome: Outcome[E] | None = None
        self.abandoned = False

    def call(self, handler: Handler) -> object:
        """What `handler` returns for the event as it is now (maybe an awaitable)."""
        if handler.wants_ctx:
            return handler.fn(self.event, self.bus.ctx)
        return handler.fn(self.event)

    def walk(self) -> tuple[Handler, object] | None:
        """Run the plain handlers from `next` on (on a worker thread), up to the first that
        returns an awaitable, which is handed back to be awaited on the loop."""
        while self.next < len(self.handlers) and self.outcome is None and not self.abandoned:
            handler = self.handlers[self.next]
            if not handler.sync:
                return None
            self.next += 1
            try:
                value = self.call(handler)
            except (Exception, KeyboardInterrupt, SystemExit) as exc:
                self.failed(exc)
                continue
            if value is not None and inspect.isawaitable(value):
                return handler, value
            self.take(handler, value)
        return None

    async def settle(self, handler: Handler, value: object) -> None:
        """Await what `handler` returned, then apply it."""
        try:
            if value is not None and inspect.isawaitable(value):
                value = await value
        except (Exception, KeyboardInterrupt, SystemExit) as exc:  # reported, never raised
            self.failed(exc)
            return
        self.take(handler, value)

    def failed(self, exc: BaseException) -> None:
        """A handler raised: reported; a guard event is blocked by it."""
        name = self.event.type
        message = f"{name} handler failed: {str(exc) or type(exc).__name__}"
        self.bus._report(message, "error")
        if isinstance(self.event, Event) and self.event.guard:
            self.outcome = Outcome(self.event, failure=message)

    def take(self, handler: Handler, value: object) -> None:
        """Apply a handler's return value by the chain rule."""
        if value is None:
            return
        if value is False:
            self.outcome = Outcome(self.event, stopped=True)
            return
        event = self.event
        changed = event.apply(value) if isinstance(event, Event) else None
        if changed is None:
            name, takes = event.type, event.takes if isinstance(event, Event) else Event.takes
            self.bus._report(
                f"{name} handler {handler.label} returned {_shown(value)}, but {name} "
                f"takes {takes}; ignored",
                "warning",
            )
            return
        self.event = changed
        if changed.settled:
            self.outcome = Outcome(changed)


def _shown(value: object) -> str:
    """A returned value as a warning names it: its type, and a short look at it."""
    try:
        text = repr(value)
    except Exception:  # a handler's own object may not even print
        return type(value).__name__
    return type(value).__name__ + (f" {text}" if len(text) <= 40 else f" {text[:37]}...")


_WORKER = threading.local()
WORKING: set[int] = set()
"""The threads running a plain handler now: empty (the common case) means no `worker_loop`
look-up is needed — a record streamed per delta pays one truth test."""


def worker_loop() -> asyncio.AbstractEventLoop | None:
    """The loop that awaits the handler running on this thread; `None` off a worker (so code
    a handler calls knows to hand loop-bound work back to that loop)."""
    if not WORKING:
        return None
    loop: asyncio.AbstractEventLoop | None = getattr(_WORKER, "loop", None)
    return loop


Job = tuple[Callable[..., Any], tuple[Any, ...], contextvars.Context, asyncio.Future[Any]]


class Workers:
    """Daemon threads for plain handlers: a free one takes the call, or a new one starts (a
    stuck thread is never waited for, and never given another call)."""

    def __init__(self) -> None:
        self._idle: list[queue.SimpleQueue[Job]] = []
        self._lock = threading.Lock()

    def forget(self) -> None:
        """Drop every worker (in a forked child, whose threads did not come along)."""
        self._idle = []
        self._lock = threading.Lock()

    async def call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """`fn(*args)` on a worker thread, awaited; its exception is raised here."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is None:
            import queue  # only once a plain handler runs: start-up does not pay for it

            jobs = queue.SimpleQueue()
            threading.Thread(target=self._work, args=(jobs,), daemon=True).start()
        jobs.put((fn, args, contextvars.copy_context(), future))
        return await future

    def _work(self, jobs: queue.SimpleQueue[Job]) -> None:
        while True:
            fn, args, context, future = jobs.get()
            loop = future.get_loop()
            _WORKER.loop = loop
            WORKING.add(threading.get_ident())
            try:
                result, error = context.run(fn, *args), None
            except BaseException as exc:  # handed to the awaiting task, whatever it is
                result, error = None, exc
            WORKING.discard(threading.get_ident())
            _WORKER.loop = None
            with self._lock:
                self._idle.append(jobs)
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_settle, future, result, error)
            del fn, args, future, result, error


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the wait was cancelled
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


WORKERS = Workers()
if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=WORKERS.forget)
