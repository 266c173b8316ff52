"""The `bash` tool: run a shell command in the session's directory, or start a background job."""

from __future__ import annotations

import asyncio
import math
import os
from pathlib import Path
from typing import IO, Any

from auger.tools.base import ToolContext, ToolError, ToolResponse, tool
from auger.tools.jobs import command_argv, session_jobs, stop_group
from auger.tools.paths import os_error
from auger.tools.truncate import MAX_BYTES, MAX_LINES, format_size, tail

DEFAULT_TIMEOUT = 120.0


class _Output:
    """A command's combined output: all of it while small, then its tail in memory and the
    whole of it in a temp file (in the session's temp `directory`, removed when it closes)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self.buffer = bytearray()
        self.size = 0
        self.newlines = 0
        self.path: str | None = None
        self._file: IO[bytes] | None = None

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self.newlines += chunk.count(b"\n")
        self.buffer += chunk
        if self._file is not None:
            self._file.write(chunk)
        elif len(self.buffer) > MAX_BYTES:
            self._spill()
        if len(self.buffer) > 2 * MAX_BYTES:
            # One byte over the budget, so the partial line at the front is never shown.
            del self.buffer[: -(MAX_BYTES + 1)]

    def _spill(self) -> None:
        import tempfile

        fd, self.path = tempfile.mkstemp(prefix="auger-bash-", suffix=".log", dir=self.directory)
        self._file = os.fdopen(fd, "wb")
        self._file.write(self.buffer)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def render(self, status: str | None = None) -> str:
        """The output (its tail when long), then a truncation notice and `status`, if any."""
        cut = tail(self.buffer.decode(errors="replace").rstrip("\n"), MAX_LINES, MAX_BYTES)
        if cut.truncated and self.path is None:
            self._spill()  # over the line limit while under the byte limit
        self.close()
        parts = [cut.text or "(no output)"]
        if cut.truncated:
            lines = self.newlines + (not self.buffer.endswith(b"\n"))
            parts.append(
                f"[Output truncated: showing the last {format_size(len(cut.text.encode()))} of "
                f"{format_size(self.size)} ({lines} lines). Full output: {self.path}]"
            )
        if status:
            parts.append(status)
        return "\n\n".join(parts)


async def bash(
    command: str,
    timeout: float | None = None,
    run_in_background: bool = False,
    *,
    ctx: ToolContext,
) -> ToolResponse | str:
    """Run a bash command in the working directory, without stdin; returns stdout and stderr
    (the last 2,000 lines or 50 KB, the rest saved to a file). run_in_background starts a job
    for servers and watchers and returns its id; you are told when it exits; see jobs. Prefer
    read, grep, find and ls over their shell forms.

    Args:
        timeout: Seconds (default 120).
    """
    if not command.strip():
        raise ToolError("validation_error", "command is empty")
    if timeout is not None and not (0 < timeout < math.inf):  # NaN fails both comparisons
        raise ToolError("validation_error", "timeout must be a positive number of seconds")
    if run_in_background:
        return await _background(command, ctx)
    seconds = timeout or DEFAULT_TIMEOUT
    scripts = None if ctx.jobs is None else ctx.jobs.directory()
    argv, env = command_argv(command, ctx.cwd, ctx.env, ctx.sandbox, scripts)
    try:
        return await _foreground(argv, env, seconds, ctx)
    finally:
        if ctx.sandbox is not None:
            ctx.sandbox.release()


async def _foreground(
    argv: list[str], env: dict[str, str], seconds: float, ctx: ToolContext
) -> ToolResponse | str:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=ctx.cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        raise os_error(exc, f"working directory {ctx.cwd}") from None
    assert process.stdout is not None
    output = _Output(None if ctx.jobs is None else ctx.jobs.directory())
    try:
        async with asyncio.timeout(seconds):
            while chunk := await process.stdout.read(65536):
                output.add(chunk)
            await process.wait()
    except TimeoutError:
        await stop_group(process)
        return ToolResponse.error("timeout", output.render(f"[timed out after {seconds:g}s]"))
    except asyncio.CancelledError:
        await stop_group(process)
        raise
    finally:
        output.close()
    code = process.returncode or 0
    if code == 0:
        return output.render()
    status = f"[exit code {code}]" if code > 0 else f"[killed by signal {-code}]"
    return ToolResponse.error("command_failed", output.render(status))


async def _background(command: str, ctx: ToolContext) -> str:
    try:
        job = await session_jobs(ctx).start(command, ctx.cwd, ctx.env, ctx.sandbox)
    except OSError as exc:
        raise os_error(exc, f"working directory {ctx.cwd}") from None
    return (
        f"Started background job {job.id}; its output goes to {job.output_path}. You will be "
        f"told when it exits; jobs with job_id {job.id!r} shows its status and new output, "
        "and with kill stops it."
    )


TOOL = tool(bash)


def extension(g: Any) -> None:
    """Registers `bash`."""
    g.tool(TOOL)
