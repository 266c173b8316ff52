"""An incremental decoder of AWS's binary event-stream framing (`vnd.amazon.eventstream`).

Each message is a 12-byte prelude (total length, headers length, the prelude's CRC32), the
headers (a name, a type byte, a typed value), the payload, and the message's CRC32, all
big-endian: https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html (the same
framing Bedrock's InvokeModelWithResponseStream answers in). A bad CRC, a length
out of bounds or an unknown header type is a `FrameError`: the stream is not to be trusted.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from typing import Any

_PRELUDE = 12
_MAX_MESSAGE = 16 * 1024 * 1024  # the framing's own limit on one message
_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}  # byte, short, int, long, timestamp


class FrameError(ValueError):
    """The bytes are not a well-formed event-stream message."""


class Message:
    """One decoded message: its headers (name -> value) and its payload."""

    __slots__ = ("headers", "payload")

    def __init__(self, headers: dict[str, Any], payload: bytes) -> None:
        self.headers = headers
        self.payload = payload


def _headers(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {}
    at = 0
    while at < len(data):
        size = data[at]
        name = data[at + 1 : at + 1 + size].decode()
        at += 1 + size
        if at >= len(data):
            raise FrameError("a header without a value")
        kind = data[at]
        at += 1
        value: Any
        if kind in (0, 1):
            value = kind == 0
        elif kind in _FIXED:
            fmt = _FIXED[kind]
            width = struct.calcsize(fmt)
            (value,) = struct.unpack_from(fmt, data, at)
            at += width
        elif kind in (6, 7):
            (length,) = struct.unpack_from(">H", data, at)
            raw = data[at + 2 : at + 2 + length]
            value = raw.decode() if kind == 7 else bytes(raw)
            at += 2 + length
        elif kind == 9:
            value = str(uuid.UUID(bytes=bytes(data[at : at + 16])))
            at += 16
        else:
            raise FrameError(f"unknown header value type {kind}")
        if at > len(data):
            raise FrameError("a header runs past the headers")
        out[name] = value
    return out


class EventStreamDecoder:
    """Feed it byte chunks; it returns the messages they complete, CRCs checked."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[Message]:
        """The messages completed by `chunk`, in order."""
        self._buffer += chunk
        out: list[Message] = []
        buffer = self._buffer
        while len(buffer) >= _PRELUDE:
            total, header_size, prelude_crc = struct.unpack_from(">III", buffer)
            if zlib.crc32(buffer[:8]) != prelude_crc:
                raise FrameError("the prelude's CRC does not match")
            if not _PRELUDE + header_size + 4 <= total <= _MAX_MESSAGE:
                raise FrameError(f"a message length out of bounds ({total} bytes)")
            if len(buffer) < total:
                break
            (message_crc,) = struct.unpack_from(">I", buffer, total - 4)
            if zlib.crc32(buffer[: total - 4]) != message_crc:
                raise FrameError("the message's CRC does not match")
            try:
                headers = _headers(bytes(buffer[_PRELUDE : _PRELUDE + header_size]))
            except (struct.error, IndexError, UnicodeDecodeError, ValueError) as exc:
                raise FrameError(f"unreadable headers: {exc}") from None
            out.append(Message(headers, bytes(buffer[_PRELUDE + header_size : total - 4])))
            del buffer[:total]
        return out
