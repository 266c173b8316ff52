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

import msgspec

from auger.config.errors import ConfigError
from auger.config.paths import display
from auger.config.project import project_root
from auger.config.settings import load
from auger.config.trust import TrustStore
from auger.extensions.source import Source, from_file
from auger.host import Host
from auger.session.paths import find_session, latest_session
from auger.session.store import SessionError, SessionFile, SessionHeader

ENTRY_POINT_GROUP = "auger.extensions"


def install_paths(cwd: Path) -> list[str]:
    """`sys.path` without the project (SPEC §7): no entry that is relative, or that is the
    working directory or a folder above it up to the repository root — where `python -m`,
    `python -c` or a `PYTHONPATH=.` would let a file the repository ships pass for an installed
    package. Folders inside the project that the user installed (a `.venv`, a `pip install -e`
    source folder) stay."""
    here = _real(cwd)
    root = project_root(cwd)
    project = {here, *(p for p in here.parents if _within(p, root))}
    return [e for e in sys.path if os.path.isabs(e) and _real(e) not in project]


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def installed(home: Path, cwd: Path) -> list[Source]:
    """Extensions from installed packages (entry-point group `auger.extensions`), never from
    the project (see `install_paths`).

    Scanning every installed distribution costs tens of milliseconds, so the result is cached
    in `home/cache/` and used while none of the scanned directories has changed since.
    """
    paths = install_paths(cwd)
    key = [[p, _mtime(p)] for p in paths]
    cache = home / "cache" / "entry_points.json"
    try:
        data = json.loads(cache.read_text())
        points = data["points"] if data.get("key") == key else None
    except (OSError, ValueError, TypeError, AttributeError):
        points = None
    if points is None:
        from importlib.metadata import distributions

        seen: set[str] = set()
        points = []
        for dist in distributions(path=paths):
            name = (dist.metadata["Name"] or "").lower()
            if name in seen:
                continue  # the first on the path wins, as for imports
            seen.add(name)
            points += [
                [ep.name, ep.value] for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP
            ]
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


def _project_files(home: Path, cwd: Path) -> list[Source]:
    return _files(project_root(cwd, home) / ".auger" / "extensions", "project")


def waiting_for_trust(home: Path, cwd: Path) -> list[str]:
    """What the project at `cwd` has that applies only once it is trusted: its extension
    files and the settings keys that need trust (empty once trusted)."""
    if TrustStore(home).is_trusted(cwd):
        return []
    files = [f".auger/extensions/{s.path.name}" for s in _project_files(home, cwd) if s.path]
    return [*load(home, cwd).ignored, *files]


_asked: set[Path] = set()  # projects whose trust question was answered in this process


async def ask_trust(home: Path, cwd: Path, host: Host) -> bool:
    """Ask once per process whether to trust the project, when it has something that waits
    for trust and the host can confirm; remembers a yes. Whether the project is trusted now."""
    store = TrustStore(home)
    waiting = waiting_for_trust(home, cwd)
    if not waiting:
        return True
    project = project_root(cwd, home)
    if project in _asked or "confirm" not in host.capabilities:
        return False
    _asked.add(project)
    question = (
        f"Trust {display(project)}? Trusting it applies its {', '.join(waiting)}, which can "
        "run code and use your keys."
    )
    if await host.confirm(question):
        store.trust(project)
        return True
    return False


class Discovered(msgspec.Struct, frozen=True):
    """Every extension source of a session, and the project files left out for lack of trust."""

    sources: list[Source]
    untrusted: list[str]

    @property
    def user_names(self) -> frozenset[str]:
        """The user's own extensions (files and packages): no project setting disables them."""
        return frozenset(s.name for s in self.sources if s.kind in ("user", "package"))


def discover(
    home: Path,
    cwd: Path,
    *,
    paths: Sequence[str] = (),
    discovered: bool = True,
) -> Discovered:
    """Every extension source for a session: packages, the user's files, the project's (once
    trusted), then `paths`, the `--extension` files (a missing one is a `ConfigError`);
    `discovered=False` (`--no-extensions`) skips all but `paths`."""
    sources: list[Source] = []
    untrusted: list[str] = []
    if discovered:
        sources += installed(home, cwd)
        sources += _files(home / "extensions", "user")
        project = _project_files(home, cwd)
        if TrustStore(home).is_trusted(cwd):
            sources += project
        else:
            untrusted = [f".auger/extensions/{s.path.name}" for s in project if s.path]
    for raw in paths:
        path = (cwd / raw).expanduser()
        if path.is_dir():
            raise ConfigError(
                f"--extension {raw} is a directory: give the .py file of an extension"
            )
        if not path.is_file():
            raise ConfigError(f"extension file {raw} does not exist")
        sources.append(from_file(path, "flag"))
    return Discovered(sources, untrusted)


def settings_for(home: Path, cwd: Path, found: Discovered) -> tuple[dict[str, Any], list[str]]:
    """The session's settings (the user's extensions protected from being disabled), and the
    warnings to show: reading them, and the one trust notice naming all that was ignored."""
    loaded = load(home, cwd, protected=found.user_names)
    return loaded.settings, loaded.notices(cwd, found.untrusted)


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
                return SessionFile.create(target, header, parents=False)
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
