"""`auger` in a real terminal: a tmux server of its own per test, driven by keys and judged by
what a person would see on the screen."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from support.cli import Project

TMUX = "/usr/bin/tmux"


class Pane:
    """`auger` in a tmux server of its own, on a 100×30 terminal."""

    def __init__(
        self, project: Project, *args: str, cwd: Path | None = None, under: Sequence[str] = ()
    ) -> None:
        """`auger ARGS` in `cwd` (the project's root), run by `under` (a wrapper's argv)."""
        self.socket = f"auger-test-{uuid.uuid4().hex[:12]}"
        # The server's socket goes in a directory of its own, not the shared /tmp/tmux-UID, and
        # a short one: under pytest-xdist the test's own directory is too deep for the 107
        # bytes a Unix socket's path may have.
        self._sockets = tempfile.mkdtemp(prefix="tmux-", dir="/tmp")
        self._env = {**project.env, "TERM": "xterm-256color", "TMUX_TMPDIR": self._sockets}
        # The exit status comes through a shell: tmux may not have reaped auger when asked.
        self._status = project.root.parent / f"{self.socket}.status"
        wrapper = f'"$@"; echo $? > {shlex.quote(str(self._status))}'
        try:
            self._start(cwd or project.root, wrapper, [*under, *project.command(*args)])
        except BaseException:
            self.kill()
            raise

    def _start(self, cwd: Path, wrapper: str, argv: list[str]) -> None:
        self.tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            str(cwd),
            "sh",
            "-c",
            wrapper,
            "sh",
            *argv,
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
        )

    def tmux(self, *args: str) -> str:
        """Run a tmux command against this server; its output."""
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args],
            env=self._env,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        """Press keys (tmux names: `Enter`, `Escape`, `Down`, `C-d`)."""
        self.tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        """Type `text` literally."""
        self.tmux("send-keys", "-t", "main", "-l", text)

    def screen(self) -> str:
        """What the terminal shows now."""
        return self.tmux("capture-pane", "-p", "-t", "main")

    def scrollback(self) -> str:
        """Everything the terminal holds: the scrollback, then the screen."""
        return self.tmux("capture-pane", "-p", "-S", "-", "-E", "-", "-t", "main")

    def wait_for(self, *needles: str, timeout: float = 10) -> str:
        """The screen, once it shows every one of `needles`."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(n in screen for n in needles):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {needles!r} on the screen:\n{screen}")
            time.sleep(0.05)

    def wait_idle(self, timeout: float = 10) -> str:
        """The screen, once no turn runs (its spinner's `esc to cancel` is gone)."""
        deadline = time.monotonic() + timeout
        while "esc to cancel" in (screen := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"the turn never ended:\n{screen}")
            time.sleep(0.05)
        return screen

    def exit_status(self, timeout: float = 10) -> int:
        """The status `auger` exited with, once it has."""
        deadline = time.monotonic() + timeout
        while not self._status.exists() or not self._status.read_text().endswith("\n"):
            if time.monotonic() > deadline:
                raise AssertionError(f"auger is still running:\n{self.screen()}")
            time.sleep(0.05)
        return int(self._status.read_text())

    def kill(self) -> None:
        """Stop the tmux server and whatever still runs in it."""
        subprocess.run(
            [TMUX, "-L", self.socket, "kill-server"], env=self._env, capture_output=True, timeout=10
        )
        shutil.rmtree(self._sockets, ignore_errors=True)


def start(
    panes: list[Pane],
    project: Project,
    *args: str,
    cwd: Path | None = None,
    under: Sequence[str] = (),
) -> Pane:
    pane = Pane(project, *args, cwd=cwd, under=under)
    panes.append(pane)
    return pane


def in_order(text: str, *needles: str) -> list[int]:
    """Where each needle first appears at or after the one before (-1 when it does not)."""
    at, found = 0, []
    for needle in needles:
        at = text.find(needle, at)
        found.append(at)
        if at < 0:
            at = 0
    return found
