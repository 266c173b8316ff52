"""Where session files live, finding one, and listing them.

Sessions of a working directory live in `<home>/sessions/<slug>/<id>.jsonl`. The slug is the
directory made readable and safe for a file name (runs of characters other than letters,
digits, `.`, `_` and `-` become `-`; the last 60 kept) followed by 8 hex digits of the SHA-256
of the exact path, so two directories never share a folder: `/work/main` → `work-main-f2af6c09`.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import msgspec

from auger.session.files import SessionError, read_session_bytes
from auger.session.header import read_header

SLUG_LIMIT = 60

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def cwd_slug(cwd: str | Path) -> str:
    """The folder name of a working directory's sessions (see the module docstring)."""
    text = str(cwd)
    readable = _UNSAFE.sub("-", text).strip("-.")[-SLUG_LIMIT:].lstrip("-.")
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"{readable}-{digest}" if readable else digest


def sessions_dir(home: str | Path, cwd: str | Path) -> Path:
    """The folder holding the sessions of the project `cwd` is in, under auger's home."""
    from auger.config.project import project_root

    return Path(home) / "sessions" / cwd_slug(project_root(Path(cwd), Path(home)))


def new_session_path(home: str | Path, cwd: str | Path, session_id: str) -> Path:
    """Where the session `session_id` of `cwd` is stored."""
    return sessions_dir(home, cwd) / f"{session_id}.jsonl"


def _session_files(folder: Path) -> list[Path]:
    return list(folder.glob("*.jsonl")) if folder.is_dir() else []


def latest_session(home: str | Path, cwd: str | Path) -> Path | None:
    """The most recently written session of `cwd`, if it has any."""
    files = _session_files(sessions_dir(home, cwd))
    return max(files, key=lambda path: path.stat().st_mtime, default=None)


def find_session(home: str | Path, cwd: str | Path, prefix: str) -> Path:
    """The session of `cwd` whose id is or starts with `prefix`.

    Raises `SessionError` when none matches or several do.
    """
    folder = sessions_dir(home, cwd)
    matches = sorted(path for path in _session_files(folder) if path.stem.startswith(prefix))
    exact = [path for path in matches if path.stem == prefix]
    if exact:
        return exact[0]
    if not matches:
        raise SessionError(f"no session id starts with {prefix!r} in {folder}")
    if len(matches) > 1:
        shown = ", ".join(path.stem for path in matches[:5])
        more = ", …" if len(matches) > 5 else ""
        raise SessionError(
            f"{prefix!r} matches {len(matches)} sessions ({shown}{more}): give more of the id"
        )
    return matches[0]


class SessionSummary(msgspec.Struct, frozen=True):
    """A session as `auger sessions` lists it.

    `messages` and `cost` cover the whole file, every branch; `cost` sums the known costs of
    its assistant messages and is `None` when none is known. `modified` is the file's mtime.
    """

    id: str
    path: Path
    cwd: str
    title: str
    name: str | None
    created: str
    modified: float
    messages: int
    cost: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = msgspec.structs.asdict(self)
        out["path"] = str(self.path)
        return out


class _Usage(msgspec.Struct):
    cost: float | None = None


class _Message(msgspec.Struct):
    usage: _Usage | None = None


class _Line(msgspec.Struct):
    """The few fields a listing needs; msgspec skips the rest without building it."""

    type: str = ""
    message: _Message | None = None
    name: str | None = None


_decode_line = msgspec.json.Decoder(_Line).decode


def _summary(path: Path) -> SessionSummary:
    data = read_session_bytes(path)
    first, _, rest = data.partition(b"\n")
    header = read_header(path, first)
    messages = 0
    cost: float | None = None
    name: str | None = None
    for line in rest.split(b"\n"):
        try:
            entry = _decode_line(line)
        except (ValueError, RecursionError):
            continue
        if entry.type == "message" and entry.message is not None:
            messages += 1
            usage = entry.message.usage
            if usage is not None and usage.cost is not None:
                cost = (cost or 0.0) + usage.cost
        elif entry.type == "session_info":
            name = entry.name
    return SessionSummary(
        header.id,
        path,
        header.cwd,
        header.title,
        name,
        header.created,
        path.stat().st_mtime,
        messages,
        cost,
    )


def list_sessions(home: str | Path, cwd: str | Path | None = None) -> list[SessionSummary]:
    """The sessions of `cwd` (`None`: of every directory), most recently written first.

    Files that are not sessions this version can read (or newer ones) are left out.
    """
    root = Path(home) / "sessions"
    folders = [sessions_dir(home, cwd)] if cwd is not None else list(root.glob("*"))
    summaries: list[SessionSummary] = []
    for folder in folders:
        for path in _session_files(folder):
            try:
                summaries.append(_summary(path))
            except (OSError, SessionError):
                continue
    summaries.sort(key=lambda summary: summary.modified, reverse=True)
    return summaries
