"""Running one piece of work (a prompt, a command) as a stream of records: the task behind
it, its cancel, and the `session_start` that opens a session's first stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

from auger.engine.state import AgentState
from auger.engine.stream import Channel, Stream
from auger.llm.records import Record
from auger.llm.usage import Usage
from auger.records import SessionEnd, SessionStart, TurnEnd

_END = object()


class Runner:
    """One stream at a time on an Engine; `cancel` is safe from any thread or a signal."""

    def __init__(self, state: AgentState, stream: Stream) -> None:
        self._state = state
        self._stream = stream
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def run(
        self, work: Callable[[], Awaitable[None]], check_reload: bool = True
    ) -> AsyncIterator[Record]:
        """Stream the records `work` produces; the stream ends when the work does."""
        if self._task is not None:
            raise RuntimeError("a prompt is already running on this Runtime")
        channel = Channel()
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._open(work, channel, check_reload))
        try:
            while True:
                await channel.wait()
                for item in channel.drain():
                    if item is _END:
                        return
                    yield item
        finally:
            task, self._task = self._task, None
            if task is not None and not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            self._stream.close()

    async def _open(
        self, work: Callable[[], Awaitable[None]], channel: Channel, check_reload: bool
    ) -> None:
        state, stream = self._state, self._stream
        try:
            # a prompt sees the extension files changed since the last one
            if check_reload and state.boundary is not None:
                await state.boundary()
            root = str(state.place.cwd)
            opening: list[Record] = []
            if state.opening == "reload":
                opening = [
                    SessionEnd("reload", root),
                    SessionStart(state.conversation.id, "reload", root),
                ]
            elif state.opening is not None:
                opening = [SessionStart(state.conversation.id, state.opening, root)]
            state.opening = None
            # session_start first, then what was queued while idle
            try:
                for record in opening:
                    channel.put(record)
                    await stream.observe(record)
            except asyncio.CancelledError:  # a Ctrl-C while a session_start hook runs
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()
                stream.open(channel.put)
                stream.emit(TurnEnd("cancelled", Usage()))
                return
            stream.open(channel.put)
            await stream.observe_notices()
            await work()
        finally:
            channel.put(_END)

    @contextlib.contextmanager
    def cancellable(self) -> Iterator[None]:
        """Let `cancel` reach the current task while it does work outside a stream (closing
        the session), so a Ctrl-C cuts a stuck `session_shutdown` handler short too."""
        if self._task is not None:
            yield
            return
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            yield
        finally:
            self._task = None

    def cancel(self) -> None:
        """Cancel the running work (its commands' process groups are killed at once)."""
        loop, task = self._loop, self._task
        if loop is None or task is None or loop.is_closed():
            return
        self._state.jobs.kill_all()  # now, even when the loop itself is held up
        loop.call_soon_threadsafe(self._cancel_now)

    def _cancel_now(self) -> None:
        if self._task is not None:  # a turn that is finishing cuts its closing handlers short
            self._task.cancel()
