"""An event loop in a daemon thread, for the Runtime's synchronous wrappers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

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
