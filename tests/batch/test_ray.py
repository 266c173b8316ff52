"""The Ray engine on a local cluster: the same results as the local engine, and a worker that
dies mid-task has its task run once more, recorded once, and its working copy removed."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.batch import Task, load_tasks, read_results, run, stream
from support.batch import home_env, tasks_file, without_timings
from support.ray_cluster import local_cluster

# one Ray cluster at a time: under pytest-xdist the Ray tests share one worker
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with local_cluster() as temp:
        yield temp


def test_ray_writes_the_same_results_file_as_the_local_engine(cluster: str, tmp_path: Path) -> None:
    env = home_env(tmp_path)
    tasks, errors = load_tasks(tasks_file(tmp_path))
    assert len(tasks) == 9 and len(errors) == 1
    local, on_ray = tmp_path / "local" / "results.jsonl", tmp_path / "ray" / "results.jsonl"
    run(tasks, workers=4, env=env, results=local)
    run(tasks, workers=4, env=env, results=on_ray, engine="ray")
    assert without_timings(on_ray) == without_timings(local)
    sessions = [r.session for r in read_results(on_ray) if r.session]
    assert len(sessions) == 8
    assert all((on_ray.parent / s).stat().st_size > 0 for s in sessions)
    # the sessions came back to the driver: none stays in the workers' own session folder
    assert not list((tmp_path / "auger-home" / "sessions").glob("*/*.jsonl"))


async def test_a_task_whose_worker_dies_runs_once_more_and_is_recorded_once(
    cluster: str, tmp_path: Path
) -> None:
    env = home_env(tmp_path, delay=1.5)
    pids = tmp_path / "pids"
    victim = Task(
        "victim",
        "write",
        model="writer/m",
        setup=f"echo $PPID >> {pids}",  # $PPID: the Ray worker running the task
        check="grep -qx 42 answer.txt",
        permission_mode="auto",
    )
    other = Task(
        "other", "write", model="writer/m", check="grep -qx 42 answer.txt", permission_mode="auto"
    )
    out = tmp_path / "results.jsonl"

    async def kill_first_worker() -> int:
        while not pids.exists() or not pids.read_text().strip():
            await asyncio.sleep(0.05)
        pid = int(pids.read_text().split()[0])
        await asyncio.sleep(0.3)  # inside the agent's first (slow) model call
        os.kill(pid, signal.SIGKILL)
        return pid

    killer = asyncio.create_task(kill_first_worker())
    results = [
        r
        async for r in stream(
            [victim, other], workers=2, env=env, results=out, engine="ray", workdirs=tmp_path
        )
    ]
    killed = await killer
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2 and started[0] == killed and started[1] != killed
    assert sorted(r.id for r in results) == ["other", "victim"]
    rows = without_timings(out)
    assert [r["id"] for r in rows] == ["victim", "other"]
    assert (rows[0]["attempts"], rows[0]["solved"], rows[0]["model_calls"]) == (2, True, 2)
    assert rows[1]["attempts"] == 1
    assert not list(tmp_path.glob("auger-batch-*"))  # not even the killed worker's copy
