"""The bytes of a session file: read without blocking on what is not a file, and appended
whole under an exclusive lock."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path


class SessionError(Exception):
    """A session file that cannot be used: missing, not a session, newer, or a bad request."""


def read_session_bytes(path: Path) -> bytes:
    """The bytes of the session file at `path`.

    Raises `SessionError` when it is missing, unreadable, or not a regular file: a FIFO, a
    device or a directory is refused without blocking or reading it.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise SessionError(f"no session file at {path}") from None
    except OSError as exc:
        raise SessionError(f"cannot read session file {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SessionError(f"{path} is not a regular file, so it cannot be a session")
        with os.fdopen(os.dup(fd), "rb") as file:
            return file.read()
    except OSError as exc:
        raise SessionError(f"cannot read session file {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


class LeafMoved(Exception):
    """Another writer appended to the session file since this process last read or wrote it."""


def write_locked(fd: int, data: bytes, expected: int | None = None) -> int:
    """Append `data` whole; returns the file's new size. With `expected`, raises `LeafMoved`
    instead of writing when the file is no longer that size."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        size = os.fstat(fd).st_size
        if expected is not None and size != expected:
            raise LeafMoved
        if size and os.pread(fd, 1, size - 1) != b"\n":
            # A writer was killed mid-line: end its torn line so ours stays whole.
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        return size + len(data)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
