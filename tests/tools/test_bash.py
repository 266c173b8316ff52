"""The `bash` tool."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from auger.tools.base import ToolContext
from auger.tools.bash import TOOL as BASH

from .conftest import Call


async def wait_for_file(path: Path) -> str:
    for _ in range(500):
        if path.exists() and (text := path.read_text().strip()):
            return text
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


async def wait_gone(pgid: int, alive: Callable[[int], bool], within: float = 1.0) -> None:
    deadline = time.monotonic() + within
    while alive(pgid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not alive(pgid), f"process group {pgid} still has live processes"


async def test_runs_in_the_cwd_with_the_env_and_combines_output(
    call: Call, ctx: ToolContext, tmp_path: Path
) -> None:
    env = ToolContext(cwd=tmp_path, env={**ctx.env, "GREETING": "hi"})
    result = await call(BASH, env, command='pwd; echo "$GREETING"; echo oops >&2')
    assert not result.is_error
    assert result.content == f"{tmp_path}\nhi\noops"


async def test_stdin_is_closed(call: Call) -> None:
    result = await call(BASH, command="cat; echo done")
    assert result.content == "done"


async def test_no_output(call: Call) -> None:
    assert (await call(BASH, command="true")).content == "(no output)"


async def test_a_nonzero_exit_is_command_failed_with_output_and_code(call: Call) -> None:
    result = await call(BASH, command="echo partial; exit 3")
    assert result.error_type == "command_failed"
    assert result.content == "partial\n\n[exit code 3]"


async def test_a_timeout_kills_the_whole_group(
    call: Call, tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    started = time.monotonic()
    result = await call(
        BASH, command="echo $$ > pid; echo started; sleep 30 & sleep 30; wait", timeout=0.3
    )
    assert time.monotonic() - started < 2
    assert result.error_type == "timeout"
    assert result.content == "started\n\n[timed out after 0.3s]"
    await wait_gone(int(await wait_for_file(tmp_path / "pid")), alive)


async def test_cancel_kills_the_whole_group_and_reraises(
    call: Call, tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    task = asyncio.create_task(call(BASH, command="echo $$ > pid; sleep 30 & sleep 30; wait"))
    pgid = int(await wait_for_file(tmp_path / "pid"))
    await asyncio.sleep(0.05)  # let the sleeps start
    assert alive(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_gone(pgid, alive)


async def test_a_child_that_ignores_sigterm_is_killed(
    call: Call, tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    command = "echo $$ > pid; trap '' TERM; sleep 30"
    task = asyncio.create_task(call(BASH, command=command))
    pgid = int(await wait_for_file(tmp_path / "pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_gone(pgid, alive)


async def test_long_output_keeps_the_tail_and_saves_the_whole(call: Call) -> None:
    result = await call(BASH, command="seq 1 30000")
    assert not result.is_error
    body, notice = result.content.split("\n\n")
    lines = body.splitlines()
    assert lines[-1] == "30000"
    assert len(lines) == 2000
    assert notice.startswith("[Output truncated: showing the last ")
    whole = "".join(f"{n}\n" for n in range(1, 30001))
    assert f"of {len(whole) / 1024:.1f} KB (30000 lines). Full output: " in notice
    saved = Path(notice.rpartition("Full output: ")[2].rstrip("]"))
    assert saved.read_text() == whole
    saved.unlink()


async def test_one_huge_line_keeps_its_last_50_kb(call: Call) -> None:
    result = await call(BASH, command="echo start; head -c 200000 /dev/zero | tr '\\0' a")
    body, notice = result.content.split("\n\n")
    assert body == "a" * 50 * 1024
    saved = Path(notice.rpartition("Full output: ")[2].rstrip("]"))
    assert saved.stat().st_size == 200006
    saved.unlink()


async def test_many_short_lines_under_50_kb_are_cut_to_2000(call: Call) -> None:
    result = await call(BASH, command="seq 1 2500")
    body, notice = result.content.split("\n\n")
    assert body.splitlines()[0] == "501"
    saved = Path(notice.rpartition("Full output: ")[2].rstrip("]"))
    assert saved.read_text().splitlines() == [str(n) for n in range(1, 2501)]
    saved.unlink()


async def test_validation_and_missing_cwd(call: Call, ctx: ToolContext, tmp_path: Path) -> None:
    assert (await call(BASH, command="  ")).error_type == "validation_error"
    assert (await call(BASH, command="true", timeout=0)).error_type == "validation_error"
    gone = ToolContext(cwd=tmp_path / "gone", env=ctx.env)
    result = await call(BASH, gone, command="true")
    assert result.error_type == "not_found"
    assert "working directory" in result.content


async def test_background_needs_a_jobs_registry(call: Call, ctx: ToolContext) -> None:
    bare = ToolContext(cwd=ctx.cwd, env=ctx.env)
    result = await call(BASH, bare, command="sleep 1", run_in_background=True)
    assert result.error_type == "unavailable"


async def test_background_returns_at_once_with_the_job(call: Call) -> None:
    started = time.monotonic()
    result = await call(BASH, command="sleep 30", run_in_background=True)
    assert time.monotonic() - started < 1
    assert not result.is_error
    assert result.content.startswith("Started background job job1; its output goes to ")
    assert "jobs with job_id 'job1'" in result.content


@pytest.mark.parametrize("timeout", [float("nan"), -1.0, 0.0, float("inf")])
async def test_a_timeout_that_is_not_a_positive_number_is_refused(
    call: Call, timeout: float
) -> None:
    result = await call(BASH, command="echo never", timeout=timeout)
    assert result.error_type == "validation_error"
    assert "never" not in result.content
