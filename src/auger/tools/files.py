"""Files the tools touch: regular files only, read a block at a time, written without breaking
hard links, modes or a read-only mark, and never over a change the model has not seen."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import msgspec

from auger.tools.base import ToolError
from auger.tools.paths import os_error

BLOCK = 64 * 1024
BINARY_PROBE = 8192
"""Binary detection looks for a NUL in this many first bytes (what git and ripgrep look at)."""


class Stamp(msgspec.Struct, frozen=True):
    """Which version of a file this is: its inode, size and modification time."""

    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        """The stamp of a `stat` result."""
        return cls(st.st_ino, st.st_size, st.st_mtime_ns)


class FileReads:
    """The version of each file the model last saw (read or wrote), per Runtime."""

    def __init__(self) -> None:
        self._seen: dict[str, Stamp] = {}

    def saw(self, path: Path, stamp: Stamp) -> None:
        """The model now knows `path` as it is at `stamp`."""
        self._seen[os.path.realpath(path)] = stamp

    def seen(self, path: Path) -> bool:
        """Whether the model has read or written `path` (in any version)."""
        return os.path.realpath(path) in self._seen

    def check(self, path: Path, shown: str, current: Stamp | None) -> None:
        """Raise `file_changed` when the file moved on since the model last saw it."""
        seen = self._seen.get(os.path.realpath(path))
        if seen is not None and seen != current:
            raise ToolError(
                "file_changed",
                f"{shown} changed since you last read it; read it again before changing it",
            )


def is_binary(data: bytes) -> bool:
    """Whether a file's first block looks binary: a NUL in it."""
    return b"\0" in data[:BINARY_PROBE]


@contextlib.contextmanager
def open_regular(path: Path, shown: str) -> Iterator[BinaryIO]:
    """`path` open for reading; a tool error for a directory, a FIFO, a device or a socket
    (opened without blocking, never read) or a failed open."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise os_error(exc, shown) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ToolError("is_directory", f"{shown} is a directory; use ls to list it")
        raise ToolError("not_a_file", f"{shown} is not a regular file")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as file:
        yield file


def read_whole(file: BinaryIO, shown: str, limit: int) -> bytes:
    """All of an open file, refusing one larger than `limit` bytes before reading it."""
    size = os.fstat(file.fileno()).st_size
    if size > limit:
        raise ToolError(
            "too_large",
            f"{shown} is {size} bytes, over the {limit}-byte limit of this tool; "
            "use bash (sed, head, tail) on a file this large",
        )
    try:
        return file.read(limit + 1)[:limit]
    except OSError as exc:
        raise os_error(exc, shown) from None


class Lines:
    """The lines of an open file (split on `\\n`), each cut to `keep` characters, read one
    block at a time: memory stays bounded however long the file or its lines."""

    def __init__(self, file: BinaryIO, keep: int, first: bytes = b"") -> None:
        self._file = file
        self._keep = keep
        self._block = first
        self._at = 0

    def __iter__(self) -> Iterator[tuple[str, int]]:
        """Each line's kept text (no `\\n`) and how many characters were cut from it."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        kept: list[str] = []
        have = cut = 0
        while True:
            if self._at >= len(self._block):
                self._block, self._at = self._file.read(BLOCK), 0
                if not self._block:
                    break
            end = self._block.find(b"\n", self._at)
            piece = self._block[self._at : len(self._block) if end < 0 else end]
            self._at = len(self._block) if end < 0 else end + 1
            text = decoder.decode(piece, final=end >= 0)
            room = self._keep - have
            if room > 0:
                kept.append(text[:room])
                have += min(len(text), room)
            cut += max(len(text) - max(room, 0), 0)
            if end >= 0:
                yield "".join(kept), cut
                kept, have, cut = [], 0, 0
        text = decoder.decode(b"", final=True)
        if kept or cut or text:
            yield "".join(kept) + text[: max(self._keep - have, 0)], cut

    def count_rest(self) -> int:
        """How many lines are left after those iterated, counted without decoding them."""
        rest = self._block[self._at :]
        count = rest.count(b"\n")
        last = rest[-1:]
        while block := self._file.read(BLOCK):
            count += block.count(b"\n")
            last = block[-1:]
        return count + (1 if last not in (b"", b"\n") else 0)


def write_file(
    path: Path,
    data: bytes,
    shown: str,
    seen: FileReads | None = None,
    expected: Stamp | None = None,
) -> Stamp:
    """Replace the file at `path` (through a symlink) with `data`; returns its new stamp.

    A new or singly linked file is written to a temp file and renamed over, so it is never
    seen half-written, keeping its mode and (where allowed) its owner; a hard-linked file is
    rewritten in place so every link sees the change. Refused with a tool error: a file that is
    not a regular file, a read-only one, one the model saw in another version (`seen`), one
    that is no longer at the `expected` version (it changed while an edit was being made).
    """
    target = Path(os.path.realpath(path))
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise os_error(exc, shown) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise ToolError("is_directory", f"{shown} is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError("not_a_file", f"{shown} is not a regular file")
        if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise ToolError("permission_denied", f"{shown} is read-only")
    current = None if st is None else Stamp.of(st)
    if expected is not None and current != expected:
        raise ToolError("file_changed", f"{shown} changed while it was being edited; read it again")
    if seen is not None:
        seen.check(target, shown, current)
    try:
        if st is not None and st.st_nlink > 1:
            _rewrite_in_place(target, data)
        else:
            _replace(target, data, st)
        return Stamp.of(os.stat(target))
    except OSError as exc:
        raise os_error(exc, shown) from None


def _rewrite_in_place(target: Path, data: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CLOEXEC)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
        file.truncate()


def _replace(target: Path, data: bytes, st: os.stat_result | None) -> None:
    temp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if st is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(st.st_mode))
                if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):
                        os.fchown(file.fileno(), st.st_uid, st.st_gid)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
