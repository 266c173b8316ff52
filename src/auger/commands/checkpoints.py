"""A shadow git store of a project's files, outside the project, for `/undo` and `/rewind`.

A snapshot is a git tree (`add` then `write-tree`: two git calls); the store never runs `gc`,
so every tree stays readable.

Every git call names the store (`--git-dir`) and the project (`--work-tree`) and runs with
the `GIT_*` variables of the environment removed, so the user's own repository — its index,
refs and configuration — is never read or written. The store has its own index.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from auger.tools.git import git_command
from auger.tools.jobs import exit_text

_IDENTITY = {
    "GIT_AUTHOR_NAME": "auger",
    "GIT_AUTHOR_EMAIL": "auger@localhost",
    "GIT_COMMITTER_NAME": "auger",
    "GIT_COMMITTER_EMAIL": "auger@localhost",
}


class CheckpointError(Exception):
    """git failed (or is missing); the message says how."""


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """End `proc` and reap it: SIGTERM first, so git removes its lock files."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 2)
        except TimeoutError:
            proc.kill()
            await proc.wait()


class ShadowStore:
    """Snapshots of `project` kept as trees in the bare repository `store`."""

    def __init__(self, store: Path, project: Path, env: Mapping[str, str], timeout: float = 60):
        self.store = store
        self.project = project
        self._env = env
        self._timeout = timeout

    async def _git(self, *args: str, init: bool = False, ok: tuple[int, ...] = (0,)) -> bytes:
        where = ["--literal-pathspecs", f"--git-dir={self.store}", f"--work-tree={self.project}"]
        pre = ["-c", "core.autocrlf=false", *([] if init else where)]
        command, env = git_command([*pre, *args], self._env, extra=_IDENTITY)
        try:
            proc = await asyncio.create_subprocess_exec(
                *command,
                cwd=self.project,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise CheckpointError(f"cannot run git: {exc.strerror or exc}") from None
        try:
            out, err = await asyncio.wait_for(proc.communicate(), self._timeout)
        except BaseException as exc:  # too slow, or cancelled: no git is left behind
            await _stop(proc)
            if isinstance(exc, TimeoutError):
                raise CheckpointError(f"git {args[0]} took over {self._timeout:.0f} s") from None
            raise
        if proc.returncode not in ok:
            reason = err.decode(errors="replace").strip().splitlines()
            why = reason[-1] if reason else exit_text(proc.returncode or 0)
            raise CheckpointError(f"git {args[0]} failed: {why}")
        return out

    async def _ensure(self) -> None:
        if (self.store / "HEAD").is_file():
            return
        self.store.mkdir(parents=True, exist_ok=True)
        await self._git("init", "-q", "--bare", str(self.store), init=True)

    async def snapshot(self) -> str:
        """Record the project's files as they are now (`.gitignore` obeyed); returns the
        tree's id."""
        await self._ensure()
        # a file that cannot be read is left out (git exits 1) rather than failing the snapshot
        await self._git("add", "--all", "--ignore-errors", "--", ".", ok=(0, 1))
        tree = await self._git("write-tree")
        return tree.decode().strip()

    async def changed(self, before: str, after: str) -> list[str]:
        """The paths that differ between two snapshots."""
        out = await self._git("diff", "--name-only", "-z", "--no-renames", before, after)
        return [p for p in out.decode(errors="surrogateescape").split("\0") if p]

    async def restore(self, tree: str, paths: Iterable[str]) -> tuple[list[str], list[str]]:
        """Put `paths` back as they were in snapshot `tree`: (rewritten paths, removed paths)."""
        wanted = sorted(set(paths))
        if not wanted:
            return [], []
        out = await self._git("ls-tree", "-r", "-z", "--name-only", tree, "--", *wanted)
        present = {p for p in out.decode(errors="surrogateescape").split("\0") if p}
        rewritten = [p for p in wanted if p in present]
        removed = [p for p in wanted if p not in present]
        if rewritten:
            await self._git("checkout", tree, "--", *rewritten)
        for rel in removed:
            _remove(self.project, rel)
        return rewritten, removed


def _remove(root: Path, rel: str) -> None:
    """Delete a file the turn created, and the folders it leaves empty."""
    path = root / rel
    path.unlink(missing_ok=True)
    parent = path.parent
    while parent != root and parent.is_relative_to(root):
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent
