"""The record stream: where records go while a prompt runs (or wait for the next one), and the
one road for notices."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from auger.bus import WORKING, Bus, worker_loop
from auger.llm.records import Record
from auger.records import NoticeLevel, Notify


class Channel:
    """A one-reader queue on one event loop: cheaper per item than `asyncio.Queue`."""

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Any) -> None:
        """Queue `item` and wake the reader."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self) -> None:
        """Return once there is something to drain."""
        if not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter

    def drain(self) -> Iterator[Any]:
        """Take items until none are left (items put meanwhile are taken too)."""
        items = self._items
        while items:
            yield items.popleft()


class Stream:
    """Records for the running prompt's consumer; between prompts they go to the host's idle
    listener, or wait for the next prompt.

    Notices travel here only: `notify` puts a `notify` record on the stream, and `notify`
    handlers see it at the next await point of the running work (never a notice that a
    `notify` handler itself raised, so a failing handler cannot loop).
    """

    def __init__(self) -> None:
        self.bus: Bus | None = None
        self._sink: Callable[[Any], None] | None = None
        self._idle_sink: Callable[[Record], None] | None = None
        self._pending: list[Record] = []
        self._unobserved: list[Notify] = []
        self._observing = False

    def open(self, sink: Callable[[Any], None]) -> None:
        """A prompt starts: records go to `sink`, those queued meanwhile first."""
        pending, self._pending = self._pending, []
        self._sink = sink
        for record in pending:
            sink(record)

    def close(self) -> None:
        """The prompt is over: records wait for the next one."""
        self._sink = None

    def listen(self, sink: Callable[[Record], None] | None) -> None:
        """Records emitted while no prompt runs go to `sink` (`None`: to the next prompt),
        those already waiting first, in order."""
        self._idle_sink = sink
        if sink is not None and self._sink is None:
            pending, self._pending = self._pending, []
            for record in pending:
                sink(record)

    def emit(self, record: Record) -> None:
        """Send a record to the running prompt's stream (or to the idle listener, or the next
        prompt's stream). From a plain handler's worker thread it is handed to the loop."""
        if WORKING and (loop := worker_loop()) is not None:
            with contextlib.suppress(RuntimeError):  # a closed loop streams nothing more
                loop.call_soon_threadsafe(self.emit, record)
            return
        if self._sink is not None:
            self._sink(record)
        elif self._idle_sink is not None:
            self._idle_sink(record)
        else:
            self._pending.append(record)

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """A notice for the user: a `notify` record on the stream."""
        if (loop := worker_loop()) is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.notify, message, level)
            return
        record = Notify(message, level)
        self.emit(record)
        if not self._observing and self.bus is not None and self.bus.has(Notify):
            self._unobserved.append(record)

    async def publish(self, record: Record) -> None:
        """Stream `record`, then deliver it (and any notice raised meanwhile) to handlers."""
        self.emit(record)
        bus = self.bus
        if bus is not None and bus.has(type(record)):  # cheaper than emitting to no one
            await bus.emit(record)
        if self._unobserved:
            await self.observe_notices()

    async def observe(self, record: Record) -> None:
        """Deliver a record to its handlers without streaming it (yet)."""
        if self.bus is not None:
            await self.bus.emit(record)

    async def observe_notices(self) -> None:
        """Deliver the notices raised since the last await point to `notify` handlers."""
        if self.bus is None:
            return
        self._observing = True
        try:
            while self._unobserved:
                await self.bus.emit(self._unobserved.pop(0))
        finally:
            self._observing = False
