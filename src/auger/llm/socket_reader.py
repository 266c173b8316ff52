"""A socket's bytes, read on demand, with an idle timeout measured between them.

One lazy timer per connection is re-armed only when it fires, so a fast stream pays nothing per
chunk for the timeout.
"""

from __future__ import annotations

import asyncio

_READ_LIMIT = 1 << 20  # bytes buffered before the socket stops being read


class IdleTimeout(Exception):
    """Nothing arrived for the idle timeout."""


class Wire(asyncio.Protocol):
    """A socket's bytes, read on demand, with the idle timeout measured while waiting."""

    def __init__(self, loop: asyncio.AbstractEventLoop, idle: float) -> None:
        self.loop = loop
        self.idle = idle
        self.transport: asyncio.Transport | None = None
        self._chunks: list[bytes] = []
        self._size = 0
        self._eof = False
        self._error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._wait_since = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._drain: asyncio.Future[None] | None = None
        self._paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._chunks.append(data)
        self._size += len(data)
        if self._size > _READ_LIMIT and self.transport is not None:
            self.transport.pause_reading()
            self._paused = True
        self._wake()

    def eof_received(self) -> bool:
        self._eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._eof = True
        self._error = exc
        self._wake()
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def pause_writing(self) -> None:
        self._drain = self.loop.create_future()

    def resume_writing(self) -> None:
        if self._drain is not None and not self._drain.done():
            self._drain.set_result(None)
        self._drain = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    @property
    def at_eof(self) -> bool:
        """Whether the peer has closed its side."""
        return self._eof

    def closed(self) -> bool:
        """Whether the peer has closed (or sent something unasked, which is as bad)."""
        return self._eof or bool(self._chunks)

    def buffered(self) -> bytes:
        """What has arrived and not been read, without waiting."""
        data = b"".join(self._chunks)
        self._chunks.clear()
        self._size = 0
        if self._paused and self.transport is not None:
            self.transport.resume_reading()
            self._paused = False
        return data

    async def read(self) -> bytes:
        """The next bytes; `b""` at the end; `IdleTimeout` after `idle` seconds of silence."""
        while not self._chunks:
            if self._eof:
                if self._error is not None:
                    raise self._error
                return b""
            self._waiter = self.loop.create_future()
            self._wait_since = self.loop.time()
            if self._timer is None:
                self._timer = self.loop.call_at(self._wait_since + self.idle, self._check)
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.buffered()

    def _check(self) -> None:
        self._timer = None
        if self._waiter is None or self._waiter.done():
            return
        due = self._wait_since + self.idle
        if self.loop.time() >= due:
            self._waiter.set_exception(IdleTimeout())
        else:
            self._timer = self.loop.call_at(due, self._check)

    async def write(self, data: bytes) -> None:
        """Send `data`, waiting while the socket's buffer is full."""
        if self.transport is None or self.transport.is_closing():
            raise ConnectionResetError("the connection is closed")
        self.transport.write(data)
        if self._drain is not None:
            await self._drain

    def abort(self) -> None:
        """Drop the connection now."""
        if self.transport is not None:
            self.transport.abort()
