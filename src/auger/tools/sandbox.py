"""The sandbox for shell commands (SPEC §6): bubblewrap (`bwrap`) on Linux.

`workspace-write`: the project directory and a private temp directory are writable, everything
else read-only; `read-only`: only the private temp is writable. The network is cut off
(`--unshare-net`) unless `sandbox.network` is true. The private temp is bound at its own path
(and is `TMPDIR` inside), so a file a command leaves there is where `read` finds it.

What holds also when auger runs as root: a new user namespace with every capability dropped
and no further namespaces (`--unshare-user --cap-drop ALL --disable-userns`); no Unix sockets
(a seccomp filter, `tools/seccomp.py`); auger's home hidden (an empty tmpfs over it); and,
inside the project, what auger or git later reads as configuration that can run code kept
read-only — renaming, replacing and creating included (`PROTECTED`). `.git` itself is a mount
point (it cannot be renamed or replaced) whose objects, refs and index stay writable, so
ordinary git works; where it is absent an empty read-only one stands in, so none can be made.
The mount points bwrap creates for what did not exist are removed when the last command ends.

A sandbox that was asked for and cannot start fails closed: the command does not run. With
nothing asked, the mode is `workspace-write` where bwrap works, else `off` with one notice.
`write` and `edit` check the same writable folders in-process (`check_write`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from auger.tools.base import ToolError
from auger.tools.shellenv import EnvPolicy

SandboxMode = Literal["read-only", "workspace-write", "off"]
# Inside the writable project, what would run code outside the sandbox later stays read-only:
# auger's and Claude Code's project settings, extensions and hooks, MCP servers, and git's
# configuration and hooks. (".git" itself is handled apart: see `_protect`.)
PROTECTED = (".auger", ".claude", ".mcp.json", ".git/config", ".git/hooks", ".git/info")
_PRIVILEGES = ("--unshare-user", "--cap-drop", "ALL", "--disable-userns")
_KERNEL_KNOBS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")
# Where absent, each is held by an empty read-only folder (nothing reads a folder named
# `.mcp.json` as servers, should a crash leave it behind); `.git/config` by an empty file,
# since git refuses a folder there.
_FILES = frozenset({".git/config"})
INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap) or pass --sandbox off"


def find_bwrap(env: Mapping[str, str]) -> str | None:
    """The `bwrap` executable on the session's PATH, if any."""
    return shutil.which("bwrap", path=env.get("PATH", os.defpath))


@cache
def probe(bwrap: str | None, platform: str = sys.platform) -> str | None:
    """Why bwrap cannot run a command here, or `None` when it can (asked once per process)."""
    if platform != "linux":
        return f"bubblewrap sandboxing is Linux-only (this is {platform})"
    if bwrap is None:
        return "bwrap is not installed"
    if not os.access(bwrap, os.X_OK):
        return f"bwrap does not start ({bwrap} is not an executable file)"
    # what could be missing (user namespaces, dropping capabilities); the rest of a command's
    # namespaces cost milliseconds a start need not pay, and a command fails closed without them
    argv = [bwrap, "--ro-bind", "/", "/", *_PRIVILEGES, "--", "/bin/true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not start ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot create a sandbox here ({reason[-1] if reason else done.returncode})"
    return None


def _namespaces(network: bool) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in _KERNEL_KNOBS:  # root's uid outside would let a write through to the kernel
        args += ["--ro-bind-try", path, path]
    args += [*_PRIVILEGES, "--unshare-pid", "--unshare-ipc", "--die-with-parent"]
    if not network:
        args.append("--unshare-net")
    return args


def _base_args(bwrap: str, network: bool) -> list[str]:
    """bwrap's argv up to the mounts of one sandbox; an `OSError` when the seccomp filter
    cannot be had (compiled at the first command, not at start-up: it costs a few ms)."""
    from auger.tools import seccomp

    # `sh` opens the sealed filter afresh for each start, as descriptor 3 of bwrap
    shell = ["/bin/sh", "-c", 'exec "$@" 3<"$0"', seccomp.path()]
    return [*shell, bwrap, "--seccomp", "3", *_namespaces(network)]


def _submodules(git: Path) -> list[str]:
    """Read-only mounts for each submodule's config and hooks (`.git/modules/NAME/…`): the
    user's own `git status` runs git in every submodule, which reads them."""
    args: list[str] = []
    with contextlib.suppress(OSError):
        for module in sorted((git / "modules").iterdir()):
            for part in ("config", "hooks"):
                path = module / part
                if module.is_dir() and not module.is_symlink() and os.path.lexists(path):
                    args += ["--ro-bind", str(path), str(path)]
    return args


class Sandbox:
    """One session's sandbox: its mode, whether it was asked for, its private temp, and the
    environment policy of the commands it runs."""

    def __init__(
        self,
        mode: SandboxMode,
        project: Path,
        *,
        network: bool = False,
        explicit: bool = False,
        bwrap: str | None = None,
        problem: str | None = None,
        home: Path | None = None,
        env_policy: EnvPolicy | None = None,
    ) -> None:
        self.configured: SandboxMode = mode
        self.planning = False  # the permission mode is read-only: so is the sandbox (`follow`)
        self.project = Path(os.path.realpath(project))
        self.network = network
        self.explicit = explicit
        self.bwrap = bwrap
        self.problem = problem  # why bwrap cannot run here, if it cannot
        self.home = Path(os.path.realpath(home)) if home is not None else None
        self.env_policy = env_policy or EnvPolicy()
        self._temp: Path | None = None
        self._running = 0
        self._made: set[Path] = set()  # mount points bwrap made for what did not exist

    @classmethod
    def from_settings(
        cls,
        settings: Mapping[str, Any],
        project: Path,
        env: Mapping[str, str],
        home: Path | None = None,
    ) -> tuple[Sandbox, str | None]:
        """The sandbox `sandbox.mode` / `sandbox.network` ask for (`read-only` while the
        permission mode is), and the notice to show once when none was asked for and none
        can run."""
        section = settings.get("sandbox")
        section = section if isinstance(section, dict) else {}
        asked = section.get("mode")
        network = section.get("network") is True
        bwrap = find_bwrap(env)
        problem = None if asked == "off" else probe(bwrap)
        mode: SandboxMode
        notice = None
        if asked in ("read-only", "workspace-write", "off"):
            mode = asked
        elif problem is None:
            mode = "workspace-write"
        else:
            mode = "off"
            notice = (
                f"shell commands run without a sandbox: {problem}; the permission mode decides "
                f"alone ({INSTALL_HINT.removesuffix(' or pass --sandbox off')} to sandbox them)"
            )
        sandbox = cls(
            mode,
            project,
            network=network,
            explicit=asked in ("read-only", "workspace-write", "off"),
            bwrap=None if asked == "off" else bwrap,
            problem=problem,
            home=home,
            env_policy=EnvPolicy.from_settings(settings),
        )
        permissions = settings.get("permissions")
        if isinstance(permissions, dict):
            sandbox.follow(str(permissions.get("mode")))
        return sandbox, notice

    @property
    def mode(self) -> SandboxMode:
        """The mode in force: the configured one, but `read-only` while planning."""
        return "read-only" if self.planning and self.configured != "off" else self.configured

    def follow(self, permission_mode: str) -> None:
        """The `read-only` permission mode implies the `read-only` sandbox (SPEC §6); the
        permission step tells the sandbox the mode before each call."""
        self.planning = permission_mode == "read-only"

    @property
    def active(self) -> bool:
        """Whether commands and file writes are confined."""
        return self.mode != "off"

    def temp(self) -> Path:
        """The private temp directory (made on first use)."""
        if self._temp is None:
            import tempfile

            self._temp = Path(os.path.realpath(tempfile.mkdtemp(prefix="auger-sandbox-")))
        return self._temp

    def writable(self) -> list[Path]:
        """The folders commands and file tools may write to."""
        roots = [self.temp()]
        if self.mode == "workspace-write":
            roots.insert(0, self.project)
        return roots

    def wrap(
        self, argv: list[str], cwd: Path, env: Mapping[str, str]
    ) -> tuple[list[str], dict[str, str]]:
        """`argv` and `env` to run a command in `cwd` in the sandbox (only the environment
        policy applied when off); a `sandbox_unavailable` tool error when it was asked for and
        cannot start. Each command that starts is `release`d when it has ended."""
        inner = self.env_policy.apply(env)
        if not self.active:
            return argv, inner
        if self.problem is not None or self.bwrap is None:
            raise ToolError(
                "sandbox_unavailable",
                f"the {self.mode} sandbox cannot start: {self.problem or 'bwrap is not installed'}"
                f" — the command did not run; {INSTALL_HINT}",
            )
        try:
            args = _base_args(self.bwrap, self.network)
        except OSError as exc:
            raise ToolError(
                "sandbox_unavailable",
                f"the {self.mode} sandbox cannot start: {exc} — the command did not run",
            ) from None
        for root in self.writable():
            args += ["--bind", str(root), str(root)]
        args += self._hide_home()
        if self.mode == "workspace-write":
            args += self._protect()
        temp = str(self.temp())
        self._running += 1
        inner |= {"TMPDIR": temp, "TMP": temp, "TEMP": temp}
        return [*args, "--chdir", str(cwd), "--", *argv], inner

    def release(self) -> None:
        """A command `wrap` started has ended: when it was the last, remove the empty mount
        points bwrap left for protected paths that did not exist."""
        self._running = max(0, self._running - 1)
        if self._running:
            return
        for path in sorted(self._made, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                if path.name == "commondir":
                    path.unlink(missing_ok=True)
                elif path.is_dir() and not path.is_symlink():
                    path.rmdir()
                elif path.is_file() and not path.is_symlink() and path.stat().st_size == 0:
                    path.unlink()
        self._made.clear()

    def _hide_home(self) -> list[str]:
        home = self.home
        if home is None or not home.is_dir():
            return []
        args: list[str] = []
        if not (self.project == home or home in self.project.parents):
            args += ["--tmpfs", str(home)]
        elif (home / "auth.json").exists():
            args += ["--ro-bind", os.devnull, str(home / "auth.json")]
        return args

    def _protect(self) -> list[str]:
        git = self.project / ".git"
        args: list[str] = []
        real = git.is_dir() and not git.is_symlink() and git not in self._made
        if real:
            args += ["--bind", str(git), str(git)]  # a mount point: it cannot be renamed
            if not os.path.lexists(git / "commondir"):
                # git reads another repository's config through it; no mount can stand in
                # for it without breaking git, so one a command made is removed after it
                self._made.add(git / "commondir")
            args += _submodules(git)
        elif os.path.lexists(git) and git not in self._made:
            args += ["--ro-bind", str(git), str(git)]
        else:  # none, or the mount point a running command's sandbox made: held empty
            args += ["--tmpfs", str(git), "--remount-ro", str(git)]
            self._made.add(git)
        for rel in PROTECTED:
            path = self.project / rel
            if rel.startswith(".git/") and not real:
                continue
            if os.path.lexists(path):
                args += ["--ro-bind", str(path), str(path)]
            elif rel in _FILES:
                args += ["--ro-bind", os.devnull, str(path)]
                self._made.add(path)
            else:
                args += ["--tmpfs", str(path), "--remount-ro", str(path)]
                self._made.add(path)
        return args

    def check_write(self, path: Path, shown: str) -> None:
        """Refuse a file write outside the writable folders (a `sandbox` tool error)."""
        if not self.active:
            return
        target = Path(os.path.realpath(path))
        if any(target == root or root in target.parents for root in self.writable()):
            return
        where = (
            "the project and its private temp"
            if self.mode == "workspace-write"
            else ("its private temp only")
        )
        raise ToolError(
            "sandbox",
            f"{shown} is outside the {self.mode} sandbox, which may write to {where} — "
            "the user can widen it with --sandbox",
        )

    def close(self) -> None:
        """Remove the private temp directory."""
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None
