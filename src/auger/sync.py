"""The Runtime's synchronous wrappers, and the event loop in a daemon thread they run on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, Protocol, TypeVar

from auger.engine.turn import Answer
from auger.llm.records import Record

T = TypeVar("T")


class SyncDriver:
    """Runs coroutines on a loop of its own, for code without an event loop."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine to its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def iterate(self, agen: AsyncIterator[T]) -> Iterator[T]:
        """Drive an async iterator, yielding its items here."""

        async def step() -> T:
            return await agen.__anext__()

        while True:
            try:
                yield self.run(step())
            except StopAsyncIteration:
                return

    def stop(self) -> None:
        """Stop the loop and its thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


class _Async(Protocol):
    _sync: SyncDriver | None

    def prompt(self, text: str) -> AsyncIterator[Record]: ...

    async def ask(self, text: str) -> Answer: ...

    async def close(self) -> None: ...


class Synchronous:
    """`prompt_sync`, `ask_sync`, `close_sync`: the Runtime for code without an event loop, on a
    `SyncDriver` made at first use."""

    _sync: SyncDriver | None = None

    def _driver(self: _Async) -> SyncDriver:
        if self._sync is None:
            self._sync = SyncDriver()
        return self._sync

    def prompt_sync(self: _Async, text: str) -> Iterator[Record]:
        """`prompt()` for code without an event loop (runs one in a background thread)."""
        return Synchronous._driver(self).iterate(self.prompt(text))

    def ask_sync(self: _Async, text: str) -> Answer:
        """`ask()` for code without an event loop."""
        return Synchronous._driver(self).run(self.ask(text))

    def close_sync(self: _Async) -> None:
        """`close()` for code without an event loop."""
        if self._sync is None:
            asyncio.run(self.close())
            return
        self._sync.run(self.close())
        self._sync.stop()
        self._sync = None
