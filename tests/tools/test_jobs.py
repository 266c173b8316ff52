"""Background jobs: the registry, and the `jobs` tool."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path

from auger.records import JobExit
from auger.tools.base import ToolContext
from auger.tools.bash import TOOL as BASH
from auger.tools.jobs import TOOL as JOBS
from auger.tools.jobs import Jobs

from .conftest import Call


async def exits(jobs: Jobs, count: int = 1) -> list[JobExit]:
    """Wait for `count` jobs to exit, and take their records."""
    taken: list[JobExit] = []
    for _ in range(300):
        taken += jobs.take_exits()
        if len(taken) >= count:
            return taken
        await asyncio.sleep(0.01)
    raise AssertionError(f"only {len(taken)} of {count} jobs exited")


async def test_an_exit_is_reported_once_and_noticed(jobs: Jobs, ctx: ToolContext) -> None:
    assert jobs.take_exits() == []
    job = await jobs.start("echo out; echo err >&2; exit 3", ctx.cwd, ctx.env)
    [record] = await exits(jobs)
    assert record.job_id == job.id == "job1"
    assert record.command == "echo out; echo err >&2; exit 3"
    assert (record.exit_status, record.signal) == (3, None)
    assert 0 <= record.duration < 5
    assert Path(record.output_path).read_text() == "out\nerr\n"
    assert jobs.take_exits() == []
    notice = jobs.notice([record])
    assert "job1 exited with status 3" in notice
    assert record.output_path in notice


async def test_a_signal_is_reported_as_such(jobs: Jobs, ctx: ToolContext) -> None:
    await jobs.start("kill -KILL $$", ctx.cwd, ctx.env)
    [record] = await exits(jobs)
    assert (record.exit_status, record.signal) == (None, signal.SIGKILL)
    assert "was killed by signal 9 (SIGKILL)" in jobs.notice([record])


async def test_jobs_shows_status_and_new_output(call: Call, jobs: Jobs, tmp_path: Path) -> None:
    started = await call(
        BASH,
        command="echo one; while [ ! -e go ]; do sleep 0.01; done; echo two",
        run_in_background=True,
    )
    assert not started.is_error
    job = jobs.get("job1")
    assert job is not None
    while not job.output_path.read_text():
        await asyncio.sleep(0.01)
    first = await call(JOBS, job_id="job1")
    assert first.content.startswith("job1 is running")
    assert first.content.endswith("\n\none")
    again = await call(JOBS, job_id="job1")
    assert again.content.endswith("(no new output)")
    (tmp_path / "go").touch()
    await exits(jobs)
    last = await call(JOBS, job_id="job1")
    assert last.content.startswith("job1 exited with status 0 after ")
    assert last.content.endswith("\n\ntwo")
    listing = await call(JOBS)
    assert listing.content.startswith("job1 exited with status 0")


async def test_jobs_tails_long_output(call: Call, jobs: Jobs) -> None:
    await call(BASH, command="seq 1 100000", run_in_background=True)
    await exits(jobs)
    result = await call(JOBS, job_id="job1")
    status, notice, body = result.content.split("\n\n")
    assert status.startswith("job1 exited with status 0")
    assert "[Showing the end of " in notice
    assert body.splitlines()[-1] == "100000"
    assert len(body.splitlines()) == 2000


async def test_jobs_kill_stops_the_group(
    call: Call, jobs: Jobs, tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    await call(BASH, command="sleep 30 & sleep 30; wait", run_in_background=True)
    job = jobs.get("job1")
    assert job is not None
    await asyncio.sleep(0.05)
    result = await call(JOBS, job_id="job1", kill=True)
    assert result.content.startswith("Stopped: job1 was killed by signal 15 (SIGTERM)")
    assert [r.signal for r in await exits(jobs)] == [signal.SIGTERM]
    again = await call(JOBS, job_id="job1", kill=True)
    assert again.content.startswith("Already ended: job1")
    for _ in range(100):
        if not alive(job.process.pid):
            break
        await asyncio.sleep(0.01)
    assert not alive(job.process.pid)


async def test_kill_all_and_aclose(ctx: ToolContext, alive: Callable[[int], bool]) -> None:
    jobs = Jobs()
    first = await jobs.start("sleep 30 & sleep 30; wait", ctx.cwd, ctx.env)
    second = await jobs.start("sleep 30", ctx.cwd, ctx.env)
    await asyncio.sleep(0.05)
    jobs.kill_all()
    records = await exits(jobs, 2)
    assert {r.signal for r in records} == {signal.SIGKILL}
    for _ in range(100):
        if not alive(first.process.pid) and not alive(second.process.pid):
            break
        await asyncio.sleep(0.01)
    assert not alive(first.process.pid)
    third = await jobs.start("sleep 30", ctx.cwd, ctx.env)
    await jobs.aclose()
    assert third.process.returncode == -signal.SIGTERM
    assert not first.output_path.parent.exists()


async def test_unknown_job_and_no_registry(call: Call, ctx: ToolContext) -> None:
    unknown = await call(JOBS, job_id="job9")
    assert unknown.error_type == "not_found"
    assert "No background jobs." in unknown.content
    assert (await call(JOBS, job_id="job9", kill=True)).error_type == "not_found"
    bare = ToolContext(cwd=ctx.cwd, env=ctx.env)
    assert (await call(JOBS, bare)).error_type == "unavailable"
    assert (await call(JOBS, bare, job_id="job1", kill=True)).error_type == "unavailable"


async def test_kill_needs_a_job_id(call: Call) -> None:
    result = await call(JOBS, kill=True)
    assert result.error_type == "validation_error"
    assert "job_id" in result.content


async def test_stopping_a_group_returns_once_every_process_of_it_is_gone() -> None:
    from auger.tools.jobs import group_alive, stop_group

    for _ in range(5):  # the leader's end used to be taken for the group's
        process = await asyncio.create_subprocess_exec(
            "sh",
            "-c",
            "trap '' TERM; sleep 30 & sleep 30 & sleep 30 & wait",
            start_new_session=True,
        )
        await asyncio.sleep(0.05)
        assert group_alive(process.pid)
        await stop_group(process, grace=0.2)
        assert not group_alive(process.pid)
