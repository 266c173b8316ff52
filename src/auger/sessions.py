"""Saved sessions, the public way: list those of a folder, find one by an id prefix, open
one, and read its history as records (`auger.records`).

    from auger import sessions
    for saved in sessions.list(home, cwd):
        print(saved.id, saved.title)
    for record in sessions.history(sessions.open(sessions.find(home, cwd, "3f2a"))):
        print(record.to_dict())
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from pathlib import Path

from auger.records import Record
from auger.session.entries import timestamp
from auger.session.history import history as _history
from auger.session.paths import SessionSummary, find_session, latest_session, list_sessions
from auger.session.store import SessionError, SessionFile

__all__ = [
    "SessionError",
    "SessionFile",
    "SessionSummary",
    "find",
    "history",
    "latest",
    "list",
    "open",
    "timestamp",
]


def list(home: str | Path, cwd: str | Path | None = None) -> builtins.list[SessionSummary]:
    """The saved sessions of `cwd` (of every folder when `None`), newest first."""
    return list_sessions(home, cwd)


def find(home: str | Path, cwd: str | Path, prefix: str) -> Path:
    """The file of `cwd`'s one session whose id starts with `prefix` (`SessionError` when
    none or several do)."""
    return find_session(home, cwd, prefix)


def latest(home: str | Path, cwd: str | Path) -> Path | None:
    """The file of `cwd`'s most recent session, if any."""
    return latest_session(home, cwd)


def open(path: str | Path) -> SessionFile:
    """The saved session at `path` (`SessionError` when it cannot be read)."""
    return SessionFile.open(Path(path))


def history(session: SessionFile) -> Iterator[Record]:
    """The session's current branch as the records its live stream yielded."""
    return _history(session.branch())
