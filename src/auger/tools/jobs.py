"""Background jobs: shell commands that keep running while the conversation goes on, and the
`jobs` tool that lists, reads and stops them.

A Runtime owns one `Jobs` registry and passes it to tools as `ToolContext.jobs`. Each job runs in
its own process group with its output in a file under a temp directory the registry owns. At every
request boundary the Runtime calls `take_exits()` and tells the model `notice(exits)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auger.records import JobExit
from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.sandbox import Sandbox
from auger.tools.truncate import MAX_BYTES, format_size, tail

KILL_GRACE = 0.5  # seconds between SIGTERM and SIGKILL


# Linux refuses one argument of 128 KiB or more (MAX_ARG_STRLEN): a longer command goes to
# the shell as a script file instead of `-c` text.
LONGEST_ARGUMENT = 96 * 1024


def shell_argv(command: str, env: Mapping[str, str], scripts: Path | None = None) -> list[str]:
    """How to run `command`: `bash -c` when bash is on the PATH, else `/bin/sh -c`; a command
    too long for one argument is written to a script in `scripts` (the session's temp)."""
    import shutil

    shell = shutil.which("bash", path=env.get("PATH", os.defpath)) or "/bin/sh"
    data = command.encode("utf-8", "surrogateescape")
    if len(data) < LONGEST_ARGUMENT or scripts is None:
        return [shell, "-c", command]
    import tempfile

    fd, path = tempfile.mkstemp(prefix="command-", suffix=".sh", dir=scripts)
    with os.fdopen(fd, "wb") as script:
        script.write(data)
    return [shell, path]


def command_argv(
    command: str,
    cwd: Path,
    env: Mapping[str, str],
    sandbox: Sandbox | None,
    scripts: Path | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that run `command`, inside `sandbox` when there is one (a
    tool error when it was asked for and cannot start: the command never runs unconfined)."""
    argv = shell_argv(command, env, scripts)
    return sandbox.wrap(argv, cwd, env) if sandbox is not None else (argv, dict(env))


def signal_group(pgid: int, sig: int) -> None:
    """Send `sig` to a process group, if it is still there."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs (a zombie has already stopped)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


async def stop_group(process: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
    """End a process started with `start_new_session` and its whole group: SIGTERM, then SIGKILL
    after `grace` seconds for whatever is left — and return only once the whole group is gone,
    not only its leader."""
    signal_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), grace)
    except TimeoutError:
        pass
    finally:
        signal_group(process.pid, signal.SIGKILL)
    await process.wait()
    deadline = time.monotonic() + grace
    while group_alive(process.pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)


def exit_text(returncode: int) -> str:
    """`exited with status N` or `was killed by signal N (SIGNAME)`."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        name = f" ({signal.Signals(-returncode).name})"
    except ValueError:
        name = ""
    return f"was killed by signal {-returncode}{name}"


@dataclass(eq=False)
class Job:
    """One background command."""

    id: str
    command: str
    process: asyncio.subprocess.Process
    output_path: Path
    started: float
    ended: float | None = None
    shown_bytes: int = 0  # how much of the output the model has been shown

    def status(self, now: float) -> str:
        """One line: the job, whether it runs or how it ended, for how long, and its command."""
        returncode = self.process.returncode
        if self.ended is None or returncode is None:
            return f"{self.id} is running ({now - self.started:.1f}s): {self.command}"
        took = self.ended - self.started
        return f"{self.id} {exit_text(returncode)} after {took:.1f}s: {self.command}"

    def record(self) -> JobExit:
        """The `job_exit` record for this (exited) job."""
        returncode = self.process.returncode or 0
        return JobExit(
            job_id=self.id,
            command=self.command,
            exit_status=returncode if returncode >= 0 else None,
            signal=-returncode if returncode < 0 else None,
            duration=(self.ended or self.started) - self.started,
            output_path=str(self.output_path),
        )


class Jobs:
    """The background jobs of one Runtime."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._jobs: dict[str, Job] = {}
        self._exited: list[Job] = []
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._dir: Path | None = None

    def directory(self) -> Path:
        """The session's private temp directory (made on first use), removed by `aclose`: job
        output and the full output of long foreground commands go there."""
        if self._dir is None:
            import tempfile

            self._dir = Path(tempfile.mkdtemp(prefix="auger-jobs-"))
        return self._dir

    async def start(
        self, command: str, cwd: Path, env: Mapping[str, str], sandbox: Sandbox | None = None
    ) -> Job:
        """Start `command` in its own process group (in `sandbox`, if any), stdin closed,
        output to a file."""
        argv, run_env = command_argv(command, cwd, env, sandbox, self.directory())
        job_id = f"job{len(self._jobs) + 1}"
        path = self.directory() / f"{job_id}.log"
        try:
            with open(path, "wb") as out:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=cwd,
                    env=run_env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=out,
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                )
        except BaseException:
            if sandbox is not None:
                sandbox.release()
            raise
        job = self._jobs[job_id] = Job(job_id, command, process, path, self._clock())
        self._watchers[job_id] = asyncio.create_task(self._watch(job, sandbox))
        return job

    async def _watch(self, job: Job, sandbox: Sandbox | None) -> None:
        try:
            await job.process.wait()
        finally:
            if sandbox is not None:
                sandbox.release()
        job.ended = self._clock()
        self._exited.append(job)

    def get(self, job_id: str) -> Job | None:
        """The job with this id, if there is one."""
        return self._jobs.get(job_id)

    def summary(self) -> str:
        """Every job's status, one a line."""
        now = self._clock()
        return "\n".join(job.status(now) for job in self._jobs.values()) or "No background jobs."

    def output(self, job: Job) -> str:
        """The job's status and what it printed since the model last looked (the tail of it,
        when that is long)."""
        new = job.output_path.stat().st_size - job.shown_bytes
        window = min(new, MAX_BYTES + 1)  # one byte over, so a partial first line is dropped
        with open(job.output_path, "rb") as f:
            f.seek(job.shown_bytes + new - window)
            data = f.read(window)
        job.shown_bytes += new
        cut = tail(data.decode(errors="replace").rstrip("\n"))
        parts = [job.status(self._clock())]
        if new > MAX_BYTES or cut.truncated:
            parts.append(
                f"[Showing the end of {format_size(new)} of new output. "
                f"All of it: {job.output_path}]"
            )
        parts.append(cut.text or "(no new output)")
        return "\n\n".join(parts)

    async def stop(self, job: Job) -> str:
        """Stop one job's whole process group; returns its status."""
        if job.process.returncode is None:
            await stop_group(job.process)
        await self._watchers[job.id]
        return job.status(self._clock())

    def take_exits(self) -> list[JobExit]:
        """The `job_exit` records of jobs that exited since the last call, each exactly once."""
        if not self._exited:
            return []
        exited, self._exited = self._exited, []
        return [job.record() for job in exited]

    def notice(self, exits: list[JobExit]) -> str:
        """What the model is told about jobs that exited."""
        lines = []
        for e in exits:
            how = exit_text(-e.signal if e.signal is not None else e.exit_status or 0)
            lines.append(
                f"Background job {e.job_id} {how} after {e.duration:.1f}s: {e.command}\n"
                f"Its output is in {e.output_path} (jobs with job_id {e.job_id!r} shows "
                "what you have not seen yet)."
            )
        return "\n".join(lines)

    def kill_all(self) -> None:
        """SIGKILL the process group of every job still running (safe from another thread)."""
        for job in list(self._jobs.values()):
            if job.process.returncode is None:
                signal_group(job.process.pid, signal.SIGKILL)

    async def aclose(self) -> None:
        """Stop every job, wait for them to end, and remove the temp directory: their output
        files and the spilled output of foreground commands."""
        running = [job for job in self._jobs.values() if job.process.returncode is None]
        await asyncio.gather(*(stop_group(job.process) for job in running))
        await asyncio.gather(*self._watchers.values())
        if self._dir is not None:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)


def session_jobs(ctx: ToolContext) -> Jobs:
    """The session's jobs registry; a tool error when it has none."""
    jobs = ctx.jobs
    if not isinstance(jobs, Jobs):
        raise ToolError("unavailable", "background jobs are not available in this session")
    return jobs


def find_job(ctx: ToolContext, job_id: str) -> tuple[Jobs, Job]:
    """The session's jobs and the one with this id; a tool error when there is none."""
    jobs = session_jobs(ctx)
    job = jobs.get(job_id)
    if job is None:
        raise ToolError("not_found", f"no background job {job_id!r}.\n{jobs.summary()}")
    return jobs, job


async def jobs(job_id: str | None = None, kill: bool = False, *, ctx: ToolContext) -> str:
    """Background jobs from bash: without job_id, list them; with it, show that job's status and
    the output it printed since you last looked (not in a polling loop); with kill, stop it and
    everything it started.
    """
    if job_id is None:
        if kill:
            raise ToolError("validation_error", "kill needs the job_id of the job to stop")
        return session_jobs(ctx).summary()
    registry, job = find_job(ctx, job_id)
    if not kill:
        return registry.output(job)
    running = job.process.returncode is None
    status = await registry.stop(job)
    return f"Stopped: {status}" if running else f"Already ended: {status}"


TOOL = tool(jobs)


def extension(g: Any) -> None:
    """Registers `jobs`."""
    g.tool(TOOL)
