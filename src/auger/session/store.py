"""One session file: a JSONL header line, then one entry per line, forming a tree.

The file is append-only. Each entry is written as one whole line by a single `os.write` on an
`O_APPEND` descriptor under an exclusive `flock`, so two processes appending to the same file
never interleave their lines; nothing is buffered in the process, so a crash loses at most the
line being written (no `fsync`: an OS crash may lose more). The file appears with the first
`message` entry: entries appended before it are held in memory, so an empty start leaves no file.

Two writers: before each write, under the lock, the file's size is checked against what this
process last read or wrote; when another process appended meanwhile, its entries are loaded
first (`catch_up`), so nothing it wrote is unknown here.

Where the leaf is: a reopened file's leaf is the last entry in it. Navigating without adding
anything (`set_leaf`) appends a small `leaf` entry whose `parent_id` is the new leaf; it is not
part of the tree, and its id is not reserved (nothing ever looks one up).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import EllipsisType
from typing import Any, TypeVar

import msgspec

from auger.llm.arguments import depth
from auger.llm.messages import UserMessage
from auger.session.entries import (
    MAX_DEPTH,
    BranchSummaryEntry,
    Entry,
    LabelEntry,
    LeafEntry,
    MessageEntry,
    SessionInfoEntry,
    TreeRow,
    entry_from_dict,
    new_id,
    timestamp,
)
from auger.session.files import (
    LeafMoved,
    read_session_bytes,
    write_locked,
)
from auger.session.files import SessionError as SessionError  # re-exported: the store's error
from auger.session.header import SessionHeader as SessionHeader  # re-exported: its header
from auger.session.header import read_header

TITLE_LIMIT = 100

E = TypeVar("E", bound=Entry)

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _title(entries: Iterable[Entry]) -> str:
    """The first user message on one line, cut to `TITLE_LIMIT` characters."""
    for entry in entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            text = " ".join(entry.message.text.split())
            return text if len(text) <= TITLE_LIMIT else text[: TITLE_LIMIT - 1] + "…"
    return ""


def _line(entry: Entry) -> bytes:
    """An entry's line; `ValueError` for one a load would not take back (nested too deeply),
    so what is written is always what loads."""
    try:
        data = entry.to_dict()
        if depth(data) <= MAX_DEPTH:
            return _encode(data) + b"\n"
    except RecursionError:
        pass
    raise ValueError(f"a {entry.type} entry nested deeper than {MAX_DEPTH} levels is not saved")


class SessionFile:
    """A session file's header and its tree of entries, with a leaf where the next entry goes.

    `entries` holds the tree's entries in file order, `warnings` what loading skipped, `labels`
    each labelled entry's label, and `name` the session's latest name. A write that fails (a
    read-only or full disk) never fails `append`: the session goes on in memory only, and
    `unsaved` says why.
    """

    def __init__(self, path: Path, header: SessionHeader, *, persist: bool = True) -> None:
        self.path = path
        self.header = header
        self.persist = persist
        self.entries: list[Entry] = []
        self.warnings: list[str] = []
        self.leaf_id: str | None = None
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self._by_id: dict[str, Entry] = {}
        # Each entry's parent as the tree has it: `None` where the one named was not loaded
        # before it, so parents come before children and walking up always ends.
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[Entry]] = {}
        # A skipped entry's id -> the parent the tree had for it, so its children hang there
        self._skipped: dict[str, str | None] = {}
        self._fd: int | None = None
        # Lines waiting for the first message entry; `None` once the file exists.
        self._pending: list[bytes] | None = []
        self.unsaved: str | None = None
        self._parents = True  # whether writing the file may make its directory
        # The file's size and line count as this object last read or wrote it.
        self._size: int | None = None
        self._lines = 0

    @classmethod
    def create(
        cls, path: str | Path, header: SessionHeader, *, persist: bool = True, parents: bool = True
    ) -> SessionFile:
        """A new session at `path`; the file is written when the first message is appended.

        With `persist=False` nothing is ever written (`--no-save`): the tree lives in memory.
        With `parents=False` a missing directory is not made (a path the user named): the
        session is then not saved, and says so.
        """
        session = cls(Path(path), header, persist=persist)
        session._parents = parents
        return session

    @classmethod
    def open(cls, path: str | Path) -> SessionFile:
        """Load a session file; unreadable lines are skipped and described in `warnings`.

        Raises `SessionError` if the file is missing, is not a session, or is a newer format
        (such a file is never written to).
        """
        path = Path(path)
        data = read_session_bytes(path)
        first, _, rest = data.partition(b"\n")
        session = cls(path, read_header(path, first))
        session._pending = None
        session._size = len(first) + 1
        session._lines = 1
        session._load(rest)
        return session

    def _load(self, data: bytes) -> list[Entry]:
        """Add the entries of `data`, the file's bytes after those already loaded; returns them."""
        lines = data.split(b"\n")
        added: list[Entry] = []
        for index, line in enumerate(lines):
            number = self._lines + 1 + index
            if not line:
                continue
            where = f"{self.path}:{number}"
            try:
                raw = _decode(line)
            except (ValueError, RecursionError) as exc:
                if index == len(lines) - 1:
                    reason = "a torn last line (the writer was stopped mid-line)"
                elif isinstance(exc, RecursionError):
                    reason = "an unreadable line (nested too deeply)"
                else:
                    reason = f"an unreadable line ({exc})"
                self.warnings.append(f"{where}: skipped {reason}")
                continue
            try:
                entry = entry_from_dict(raw)
            except ValueError as exc:
                self.warnings.append(f"{where}: skipped an invalid entry ({exc})")
                self._skip(raw)
                continue
            if entry.id in self._by_id and not isinstance(entry, LeafEntry):
                self.warnings.append(f"{where}: skipped a duplicate id {entry.id}")
                continue
            self._add(entry)
            added.append(entry)
        self._lines += len(lines) - 1
        self._size = (self._size or 0) + len(data)
        return added

    def catch_up(self) -> list[Entry]:
        """Load what another writer appended since this object last read or wrote the file,
        and return it; the leaf moves to the file's last entry, as on reopening."""
        if self._size is None or not self.persist:
            return []
        try:
            if os.stat(self.path).st_size == self._size:
                return []
            with open(self.path, "rb") as file:
                file.seek(self._size)
                data = file.read()
        except OSError:
            return []
        return self._load(data)

    @property
    def exists(self) -> bool:
        """Whether the file has been written (it is, from the first message entry on)."""
        return self._pending is None

    def close(self) -> None:
        """Release the file descriptor; the object can still be read."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SessionFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------

    def get(self, entry_id: str) -> Entry | None:
        """The entry with this id, if the tree has it."""
        return self._by_id.get(entry_id)

    def branch(self, leaf_id: str | None = None) -> list[Entry]:
        """The entries from the root to `leaf_id` (default: the current leaf), root first."""
        current = self.leaf_id if leaf_id is None else self._known(leaf_id)
        path: list[Entry] = []
        by_id, parents = self._by_id, self._parent
        while current is not None:
            path.append(by_id[current])
            current = parents[current]
        path.reverse()
        return path

    def children(self, entry_id: str | None) -> list[Entry]:
        """The children of `entry_id` in file order; `None` gives the roots, orphans included."""
        return list(self._children.get(entry_id, ()))

    def tree(self) -> list[TreeRow]:
        """Every entry depth first, children in file order, for display."""
        on_branch = {entry.id for entry in self.branch()}
        rows: list[TreeRow] = []
        roots = self._children.get(None, [])
        stack = [(entry, int(len(roots) > 1)) for entry in reversed(roots)]
        while stack:
            entry, depth = stack.pop()
            rows.append(TreeRow(entry, depth, entry.id in on_branch, self.labels.get(entry.id)))
            children = self._children.get(entry.id, [])
            child_depth = depth + int(len(children) > 1)
            stack.extend((child, child_depth) for child in reversed(children))
        return rows

    # -- writing ------------------------------------------------------------------------

    def append(self, entry: E, *, parent_id: str | EllipsisType | None = ...) -> E:
        """Write `entry` as a child of `parent_id` (default: the leaf); it becomes the leaf.

        Returns the entry with its new `id`, `parent_id` and `timestamp`.
        """
        parent = self.leaf_id if parent_id is ... else parent_id
        if parent is not None:
            self._known(parent)
        entry_id = new_id()
        while entry_id in self._by_id:
            entry_id = new_id()
        entry = msgspec.structs.replace(entry, id=entry_id, parent_id=parent, timestamp=timestamp())
        if self.persist:
            line = _line(entry)
            if self._pending is None:
                self._write(line)
            elif isinstance(entry, MessageEntry):
                self._materialize([*self._pending, line], [*self.entries, entry])
            else:
                self._pending.append(line)
        self._add(entry)
        return entry

    def set_leaf(
        self, entry_id: str | None, summary: str | None = None
    ) -> BranchSummaryEntry | None:
        """Navigate: the next entry goes under `entry_id` (`None`: a new root).

        With a `summary` of the branch being left, a `branch_summary` entry is written under
        `entry_id`, becomes the leaf, and is returned.
        """
        if summary is not None:
            return self.append(BranchSummaryEntry(summary, self.leaf_id), parent_id=entry_id)
        if entry_id != self.leaf_id:
            self.append(LeafEntry(), parent_id=entry_id)
        return None

    def fork(self, entry_id: str | None, new_path: str | Path) -> SessionFile:
        """A new session at `new_path` holding the branch up to `entry_id`, ids kept.

        Its id is the file name's stem (`<id>.jsonl`); its header names this session and the
        entry. `None` forks before the first entry. Like any new session, the file is written
        once it holds a message.
        """
        new_path = Path(new_path)
        path = [] if entry_id is None else self.branch(entry_id)
        header = SessionHeader(
            id=new_path.stem,
            cwd=self.header.cwd,
            parent_session=str(self.path),
            parent_session_id=self.header.id,
            forked_from=entry_id,
        )
        forked = SessionFile(new_path, header, persist=self.persist)
        for entry in path:
            forked._add(entry)
        lines = [_line(entry) for entry in path]
        if not self.persist:
            forked._pending = []
        elif any(isinstance(entry, MessageEntry) for entry in path):
            forked._materialize(lines, path)
        else:
            forked._pending = lines
        return forked

    # -- internals ----------------------------------------------------------------------

    def _known(self, entry_id: str) -> str:
        if entry_id not in self._by_id:
            raise SessionError(f"no entry {entry_id!r} in session {self.header.id}")
        return entry_id

    def _add(self, entry: Entry) -> None:
        if isinstance(entry, LeafEntry):
            if entry.parent_id is None or entry.parent_id in self._by_id:
                self.leaf_id = entry.parent_id
            return
        # The child of a skipped entry hangs where that entry would have; one whose parent
        # was lost to an unreadable line is shown as a root.
        parent = self._skipped.get(entry.parent_id, entry.parent_id) if entry.parent_id else None
        parent = parent if parent in self._by_id else None
        self.entries.append(entry)
        self._by_id[entry.id] = entry
        self._parent[entry.id] = parent
        self._children.setdefault(parent, []).append(entry)
        self.leaf_id = entry.id
        if isinstance(entry, LabelEntry):
            if entry.label is None:
                self.labels.pop(entry.target_id, None)
            else:
                self.labels[entry.target_id] = entry.label
        elif isinstance(entry, SessionInfoEntry):
            self.name = entry.name

    def _skip(self, raw: Any) -> None:
        """Remember where a skipped entry hung (when its tree fields can be read at all)."""
        if not isinstance(raw, dict):
            return
        entry_id, parent = raw.get("id"), raw.get("parent_id")
        if isinstance(entry_id, str) and entry_id not in self._by_id:
            parent = parent if isinstance(parent, str) else None
            self._skipped[entry_id] = self._skipped.get(parent, parent) if parent else None

    def _materialize(self, lines: list[bytes], entries: Sequence[Entry]) -> None:
        """Create the file with the header (titled by the first prompt) and `lines`."""
        if not self.header.title:
            self.header = msgspec.structs.replace(self.header, title=_title(entries))
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL
        try:
            if self._parents:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, flags, 0o600)
        except FileExistsError:
            raise SessionError(f"{self.path} already exists") from None
        except OSError as exc:
            self._stop_saving(exc)
            return
        self._pending = None
        try:
            header = _encode(self.header.to_dict()) + b"\n"
            self._size = write_locked(self._fd, b"".join([header, *lines]))
            self._lines = 1 + len(lines)
        except OSError as exc:
            self._stop_saving(exc)

    def _write(self, line: bytes) -> None:
        try:
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
            try:
                size = write_locked(self._fd, line, self._size)
            except LeafMoved:
                # Another writer got in first: know its entries; ours lands as a branch.
                self.catch_up()
                size = write_locked(self._fd, line)
        except OSError as exc:
            self._stop_saving(exc)
            return
        self._lines += (size - (self._size or 0)) - len(line) + 1  # a torn line ended: +1
        self._size = size

    def _stop_saving(self, exc: OSError) -> None:
        self.persist = False
        self.unsaved = f"{exc.filename or self.path}: {exc.strerror or exc}"
        self.close()
