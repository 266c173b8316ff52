"""The sandbox for shell commands (SPEC §6): bubblewrap (`bwrap`) on Linux.

`workspace-write`: the project directory and a private temp directory are writable, everything
else read-only; `read-only`: only the private temp is writable. The network is cut off
(`--unshare-net`) unless `sandbox.network` is true. The private temp is bound at its own path
(and is `TMPDIR` inside), so a file a command leaves there is where `read` finds it.

A sandbox that was asked for and cannot start fails closed: the command does not run. With
nothing asked, the mode is `workspace-write` where bwrap works, else `off` with one notice.
`write` and `edit` check the same writable folders in-process (`check_write`). Inside the
project, `.auger` (settings and extensions), `.git/hooks` and `.git/config` stay read-only:
writing them would run code outside the sandbox later. A project without `.auger` gets an empty
read-only one mounted there (its empty mount point is left behind).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

from auger.tools.base import ToolError

SandboxMode = Literal["read-only", "workspace-write", "off"]
# Inside the writable project, what would run code outside the sandbox later stays read-only:
# auger's own project settings and extensions, and git's hooks and config.
PROTECTED = (".auger", ".git/hooks", ".git/config")
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
    argv = [bwrap, *_base_args(network=False), "--", "/bin/true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not start ({exc})"
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot create a sandbox here ({reason[-1] if reason else done.returncode})"
    return None


def _base_args(network: bool) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--unshare-pid", "--die-with-parent"]
    if not network:
        args.append("--unshare-net")
    return args


class Sandbox:
    """One session's sandbox: its mode, whether it was asked for, and its private temp."""

    def __init__(
        self,
        mode: SandboxMode,
        project: Path,
        *,
        network: bool = False,
        explicit: bool = False,
        bwrap: str | None = None,
        problem: str | None = None,
    ) -> None:
        self.mode = mode
        self.project = Path(os.path.realpath(project))
        self.network = network
        self.explicit = explicit
        self.bwrap = bwrap
        self.problem = problem  # why bwrap cannot run here, if it cannot
        self._temp: Path | None = None

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], project: Path, env: Mapping[str, str]
    ) -> tuple[Sandbox, str | None]:
        """The sandbox `sandbox.mode` / `sandbox.network` ask for, and the notice to show once
        when none was asked for and none can run."""
        section = settings.get("sandbox")
        section = section if isinstance(section, dict) else {}
        asked = section.get("mode")
        network = section.get("network") is True
        bwrap = find_bwrap(env)
        if asked == "off":
            return cls("off", project, network=network, explicit=True), None
        problem = probe(bwrap)
        if asked in ("read-only", "workspace-write"):
            return cls(
                asked, project, network=network, explicit=True, bwrap=bwrap, problem=problem
            ), None
        if problem is None:
            return cls("workspace-write", project, network=network, bwrap=bwrap), None
        notice = (
            f"shell commands run without a sandbox: {problem}; the permission mode decides "
            f"alone ({INSTALL_HINT.removesuffix(' or pass --sandbox off')} to sandbox them)"
        )
        return cls("off", project, network=network, problem=problem), notice

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
        """`argv` and `env` to run a command in `cwd` in the sandbox (unchanged when off); a
        `sandbox_unavailable` tool error when it was asked for and cannot start."""
        if not self.active:
            return argv, dict(env)
        if self.problem is not None or self.bwrap is None:
            raise ToolError(
                "sandbox_unavailable",
                f"the {self.mode} sandbox cannot start: {self.problem or 'bwrap is not installed'}"
                f" — the command did not run; {INSTALL_HINT}",
            )
        args = [self.bwrap, *_base_args(self.network)]
        for root in self.writable():
            args += ["--bind", str(root), str(root)]
        if self.mode == "workspace-write":
            args += self._protect()
        temp = str(self.temp())
        inner = dict(env) | {"TMPDIR": temp, "TMP": temp, "TEMP": temp}
        return [*args, "--chdir", str(cwd), "--", *argv], inner

    def _protect(self) -> list[str]:
        args: list[str] = []
        for rel in PROTECTED:
            path = str(self.project / rel)
            if os.path.lexists(path):
                args += ["--ro-bind", path, path]
            elif rel == ".auger":  # an empty read-only folder, so none can be made there
                args += ["--tmpfs", path, "--remount-ro", path]
        return args

    def check_write(self, path: Path, shown: str) -> None:
        """Refuse a file write outside the writable folders (a `sandbox` tool error)."""
        if not self.active:
            return
        target = Path(os.path.realpath(path))
        protected = [self.project / rel for rel in PROTECTED]
        if any(target == p or p in target.parents for p in protected):
            raise ToolError(
                "sandbox",
                f"{shown} is protected in the sandbox (project settings, extensions and git "
                "hooks stay read-only) — the user can change it, or run with --sandbox off",
            )
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
