"""A task's fresh working directory: copied, cloned or set up; and its check command."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import shlex
import shutil
import signal
import tarfile
from collections.abc import Mapping
from pathlib import Path

import msgspec

from auger.batch.tasks import Task

SETUP_TIMEOUT = 600.0
CHECK_TIMEOUT = 600.0
_OUTPUT_LIMIT = 2000


class SetupError(Exception):
    """The working directory could not be made; the message says why."""


class Shell(msgspec.Struct, frozen=True):
    """How a shell command ended: its exit status (`None` when it timed out) and output."""

    status: int | None
    output: str

    @property
    def ok(self) -> bool:
        """Whether it exited 0."""
        return self.status == 0


async def shell(command: str, cwd: Path, env: Mapping[str, str] | None, timeout: float) -> Shell:
    """Run `command` under `bash -c` in `cwd`, in its own process group, killed whole on
    timeout or cancellation; stdout and stderr together, the tail kept."""
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        command,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        _kill_group(proc)
        await proc.wait()
        return Shell(None, f"timed out after {timeout:g} s")
    except asyncio.CancelledError:
        _kill_group(proc)
        await asyncio.shield(proc.wait())
        raise
    _kill_group(proc)  # what the command left running in the background goes too
    text = out.decode("utf-8", "replace")
    return Shell(proc.returncode, text[-_OUTPUT_LIMIT:])


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def pack(path: str | Path) -> bytes:
    """A directory as gzipped tar bytes, to send where the path does not exist (a Ray worker)."""
    source = Path(path)
    if not source.is_dir():
        raise SetupError(f"path {source} is not a directory")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(source, arcname=".")
    return buffer.getvalue()


def _unpack(data: bytes, into: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(into, filter="data")


async def materialise(
    task: Task,
    into: Path,
    env: Mapping[str, str] | None,
    packed: bytes | None = None,
) -> None:
    """Fill the empty directory `into` for `task`: unpack `packed` (the task's `path`, packed
    elsewhere) or copy `path`, or clone `git` at `ref`; then run `setup`. Raises `SetupError`."""
    if packed is not None:
        await asyncio.to_thread(_unpack, packed, into)
    elif task.path is not None:
        source = Path(task.path)
        if not source.is_dir():
            raise SetupError(f"path {source} is not a directory")
        await asyncio.to_thread(shutil.copytree, source, into, symlinks=True, dirs_exist_ok=True)
    elif task.git is not None:
        await _clone(task.git, task.ref, into, env)
    if task.setup is not None:
        done = await shell(task.setup, into, env, SETUP_TIMEOUT)
        if not done.ok:
            raise SetupError(_failed("setup", done))


async def _clone(url: str, ref: str | None, into: Path, env: Mapping[str, str] | None) -> None:
    done = await shell(f"git clone -q -- {shlex.quote(url)} .", into, env, SETUP_TIMEOUT)
    if not done.ok:
        raise SetupError(_failed(f"git clone {url}", done))
    if ref is not None:
        done = await shell(f"git checkout -q {shlex.quote(ref)} --", into, env, SETUP_TIMEOUT)
        if not done.ok:
            raise SetupError(_failed(f"git checkout {ref}", done))


def _failed(what: str, done: Shell) -> str:
    status = "timed out" if done.status is None else f"exit status {done.status}"
    tail = done.output.strip().splitlines()[-1:] if done.status is not None else []
    return f"{what} failed ({status})" + (f": {tail[0]}" if tail else "")


async def check(task: Task, cwd: Path, env: Mapping[str, str] | None) -> Shell | None:
    """Run the task's check in its directory (`None` when it has none)."""
    if task.check is None:
        return None
    return await shell(task.check, cwd, env, CHECK_TIMEOUT)


def describe_failure(done: Shell) -> str:
    """One line for a failed check."""
    return _failed("check", done)
