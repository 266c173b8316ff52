"""Building a Runtime, the one way every host and batch does (`build(options)`): the
project's trust, its extensions — installed packages, the user's, the project's (once
trusted) and `--extension` files, in that order, so the most specific registers last and
wins — the settings read once, and the session to continue."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from auger.config.errors import ConfigError
from auger.config.paths import auger_home, display
from auger.config.project import project_root
from auger.config.schema import merge, validate
from auger.config.settings import Files, Loaded, combine, read
from auger.config.trust import TrustStore
from auger.extensions.source import Extension, Source, from_file
from auger.host import Host, NullHost
from auger.session.paths import find_session, latest_session
from auger.session.store import SessionError, SessionFile, SessionHeader

if TYPE_CHECKING:
    from auger.events import AgentStartChange, BeforeAgentStart
    from auger.extensions.registrar import Registrar
    from auger.llm.provider import Provider
    from auger.runtime import Runtime

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


def _named(project: Sequence[Source]) -> list[str]:
    """The project's extension files, as a trust question or notice names them."""
    return [f".auger/extensions/{s.path.name}" for s in project if s.path]


_asked: set[Path] = set()  # projects whose trust question was answered in this process


async def _trusted(
    home: Path, cwd: Path, host: Host, files: Files | None, extensions: Sequence[Source]
) -> bool:
    """Whether the project is trusted, asking once per process when it has something that
    waits for trust (a settings key that needs it, an extension file) and the host can
    confirm; a yes is remembered."""
    store = TrustStore(home)
    if store.is_trusted(cwd):
        return True
    ignored = list(combine(files, trusted=False).ignored) if files is not None else []
    waiting = [*ignored, *_named(extensions)]
    project = project_root(cwd, home)
    if not waiting or project in _asked or "confirm" not in host.capabilities:
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
    project: Sequence[Source],
    *,
    trusted: bool,
    paths: Sequence[str] = (),
    discovered: bool = True,
) -> Discovered:
    """Every extension source for a session: packages, the user's files, the `project`'s
    (when `trusted`), then `paths`, the `--extension` files (a missing one is a
    `ConfigError`); `discovered=False` (`--no-extensions`) skips all but `paths`."""
    sources: list[Source] = []
    untrusted: list[str] = []
    if discovered:
        sources += installed(home, cwd)
        sources += _files(home / "extensions", "user")
        if trusted:
            sources += project
        else:
            untrusted = _named(project)
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


class Options(msgspec.Struct, frozen=True, kw_only=True):
    """How to build a Runtime: what the command line's shared options say, for every host.

    `settings`, when given, stands for the settings files (the Python API's and a batch's);
    `permission_mode`, `allow`, `deny`, `sandbox`, `search` and `cache_ttl` go over the
    settings as the flags of the same names do; `extensions` are `--extension` files.
    """

    model: str | None = None
    cwd: str | None = None
    home: str | None = None
    env: Mapping[str, str] | None = None
    settings: Mapping[str, Any] | None = None
    max_steps: int = 100
    reasoning: str | None = None
    tools: tuple[str, ...] | None = None
    bundled: bool = True
    extensions: tuple[str, ...] = ()
    discover: bool = True
    skills: bool = True
    agents_md: bool = True
    save: bool = True
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    permission_mode: str | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    sandbox: str | None = None
    search: bool = False
    cache_ttl: Literal["5m", "1h"] | None = None
    continue_: bool = False
    resume: str | None = None
    session: str | None = None


async def build(
    options: Options,
    host: Host | None = None,
    *,
    extensions: Sequence[Source | Extension | tuple[str, Extension]] = (),
    session: SessionFile | None = None,
    provider: Provider | None = None,
    idle_before_turn_end: bool = False,
) -> Runtime:
    """The Runtime `options` describe: the project's trust settled (asked once when the host
    can confirm), extensions discovered, the settings files read once and the permission
    rules checked once, the session opened (or `session`). A `ConfigError` (no model, a
    missing key, a bad rule, a missing session…) propagates."""
    from auger.runtime import Runtime, environment

    env = environment(options.env)
    cwd = Path(options.cwd or os.getcwd()).resolve()
    home = Path(options.home) if options.home else auger_home(env)
    host = host or NullHost()
    files = None if options.settings is not None else read(home, cwd)
    project = _project_files(home, cwd)
    trusted = await _trusted(home, cwd, host, files, project)
    found = discover(
        home, cwd, project, trusted=trusted, paths=options.extensions, discovered=options.discover
    )
    _check_rules(options.allow + options.deny, "")
    if files is None:
        given = dict(options.settings or {})
        loaded = Loaded(given, tuple(validate(given, "settings")))
    else:
        loaded = combine(files, trusted=trusted, protected=found.user_names)
    section = loaded.settings.get("permissions")
    if isinstance(section, dict):
        rules = [
            r for k in ("allow", "ask", "deny") for r in section.get(k) or () if isinstance(r, str)
        ]
        _check_rules(tuple(rules), "settings permissions: ")
    settings = Loaded(
        with_flags(loaded.settings, options), loaded.warnings, (*loaded.ignored, *found.untrusted)
    )

    def reread() -> Mapping[str, Any]:  # `/reload`: the files again, with the same flags
        if files is None:
            return settings.settings
        again = combine(read(home, cwd), trusted=trusted, protected=found.user_names)
        return with_flags(again.settings, options)

    if session is None:
        session = open_session(
            home, cwd, continue_=options.continue_, resume=options.resume, path=options.session
        )
    prompt = system_prompt(options.system_prompt, options.append_system_prompt)
    own = [*extensions, *([("system_prompt", prompt)] if prompt is not None else [])]
    off = (("skills", not options.skills), ("agents_md", not options.agents_md))
    return Runtime(
        options.model,
        provider=provider,
        cwd=cwd,
        home=home,
        env=env,
        host=host,
        session=session,
        save=options.save,
        settings=settings,
        extensions=[*found.sources, *own],
        disable=[name for name, disabled in off if disabled],
        max_steps=options.max_steps,
        bundled=options.bundled,
        tools=options.tools,
        reasoning=options.reasoning,
        idle_before_turn_end=idle_before_turn_end,
        reread=reread,
    )


def _check_rules(rules: tuple[str, ...], where: str) -> None:
    from auger.extensions.permissions.policy import check_rules

    problem = check_rules(rules)
    if problem:
        raise ConfigError(f"{where}{problem}")


def with_flags(settings: Mapping[str, Any], options: Options) -> dict[str, Any]:
    """`settings` with the permission, sandbox, search and cache options over them (rules
    added, not replaced)."""
    permissions: dict[str, Any] = {"allow": list(options.allow), "deny": list(options.deny)}
    if options.permission_mode:
        permissions["mode"] = options.permission_mode
    flags: dict[str, Any] = {"permissions": permissions}
    if options.search:
        flags["tools"] = {"web_search": True}
    if options.sandbox:
        flags["sandbox"] = {"mode": options.sandbox}
    if options.cache_ttl:
        flags["cache"] = {"ttl": options.cache_ttl}
    return merge(settings, flags)


def system_prompt(replace: str | None, append: str | None) -> Extension | None:
    """An extension giving `--system-prompt` / `--append-system-prompt` their effect."""
    if replace is None and append is None:
        return None

    def extension(g: Registrar) -> None:
        def before_agent_start(event: BeforeAgentStart) -> AgentStartChange:
            text = event.system_prompt if replace is None else replace
            return {"system_prompt": f"{text}\n\n{append}" if append else text}

        g.on("before_agent_start", before_agent_start)

    return extension
