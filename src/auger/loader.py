"""Finding extensions: bundled, installed packages, the user's, the project's (once trusted),
and `--extension` files — in that order, so the most specific registers last and wins."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from auger.config.errors import ConfigError
from auger.config.paths import display
from auger.extensions.source import Source, from_file
from auger.extensions.trust import TrustStore
from auger.host import Host
from auger.session.paths import find_session, latest_session
from auger.session.store import SessionError, SessionFile, SessionHeader

ENTRY_POINT_GROUP = "auger.extensions"


def installed(home: Path) -> list[Source]:
    """Extensions from installed packages (entry-point group `auger.extensions`).

    Scanning every installed distribution costs tens of milliseconds, so the result is cached
    in `home/cache/` and used while no `sys.path` directory has changed since.
    """
    # sys.path[0] is the script's folder or the working directory: never an install target,
    # and its mtime changes whenever a file is written there
    key = [[p, _mtime(p)] for p in sys.path[1:] if p]
    cache = home / "cache" / "entry_points.json"
    try:
        data = json.loads(cache.read_text())
        points = data["points"] if data.get("key") == key else None
    except (OSError, ValueError, TypeError, AttributeError):
        points = None
    if points is None:
        from importlib.metadata import entry_points

        points = [[ep.name, ep.value] for ep in entry_points(group=ENTRY_POINT_GROUP)]
        _write(cache, {"key": key, "points": points})
    return [
        Source(name, partial(_load_entry, name, value), kind="package") for name, value in points
    ]


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _load_entry(name: str, value: str) -> Any:
    from importlib.metadata import EntryPoint

    return EntryPoint(name, value, ENTRY_POINT_GROUP).load()


def _write(path: Path, data: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs the next start its speed


def _files(folder: Path, kind: str) -> list[Source]:
    return [from_file(p, kind) for p in sorted(folder.glob("*.py"))] if folder.is_dir() else []


async def project_extensions(home: Path, cwd: Path, host: Host) -> tuple[list[Source], str | None]:
    """The project's `.auger/extensions/*.py`, only once the project is trusted.

    A host that can confirm is asked once and the answer remembered; one that cannot treats
    the project as untrusted, and the returned notice says so.
    """
    folder = cwd / ".auger" / "extensions"
    sources = _files(folder, "project")
    if not sources:
        return [], None
    store = TrustStore(home)
    if store.is_trusted(cwd):
        return sources, None
    names = ", ".join(s.path.name for s in sources if s.path is not None)
    if "confirm" in host.capabilities and await host.confirm(
        f"This project has extensions ({names}) that run Python code. Trust {display(cwd)}?"
    ):
        store.trust(cwd)
        return sources, None
    return [], (
        f"project extensions in {display(folder)} were not loaded: this project is not "
        "trusted — run `auger trust` in it to allow them"
    )


async def discover(
    home: Path,
    cwd: Path,
    host: Host,
    *,
    paths: Sequence[str] = (),
    discovered: bool = True,
) -> tuple[list[Source], list[str]]:
    """Every extension source for a session, and the notices finding them produced.

    `paths` are `--extension` files (a missing one is a `ConfigError`); `discovered=False`
    (`--no-extensions`) skips packages, user and project extensions.
    """
    sources: list[Source] = []
    notices: list[str] = []
    if discovered:
        sources += installed(home)
        sources += _files(home / "extensions", "user")
        project, notice = await project_extensions(home, cwd, host)
        sources += project
        if notice:
            notices.append(notice)
    for raw in paths:
        path = (cwd / raw).expanduser()
        if path.is_dir():
            raise ConfigError(
                f"--extension {raw} is a directory: give the .py file of an extension"
            )
        if not path.is_file():
            raise ConfigError(f"extension file {raw} does not exist")
        sources.append(from_file(path, "flag"))
    return sources, notices


def open_session(
    home: Path, cwd: Path, *, continue_: bool, resume: str | None, path: str | None
) -> SessionFile | None:
    """The session `--session PATH` (created when missing), `-r ID` or `-c` names (`None`:
    start a new one).

    A missing, ambiguous or unreadable session is a `ConfigError`.
    """
    try:
        if path:
            target = (cwd / path).expanduser()
            if not target.exists():  # a new session at that path, written from its first entry
                header = SessionHeader(id=os.urandom(6).hex(), cwd=str(cwd))
                return SessionFile.create(target, header)
            return SessionFile.open(target)
        if resume:
            return SessionFile.open(find_session(home, cwd, resume))
        if continue_:
            latest = latest_session(home, cwd)
            if latest is None:
                raise ConfigError(f"no saved session to continue in {display(cwd)}")
            return SessionFile.open(latest)
    except SessionError as exc:
        raise ConfigError(str(exc)) from None
    return None
