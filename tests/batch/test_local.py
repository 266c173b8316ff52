"""A scripted batch in one process: every way a task can end, limits, resuming, streaming."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from auger import Call, Delay, Reply, ScriptedProvider
from auger.batch import Task, load_tasks, read_results, run, stream
from support.batch import home_env, tasks_file, without_timings

EXPECTED = {
    # id: (stop_reason, solved, model_calls, tool_calls)
    "write-1": ("completed", True, 2, 1),
    "write-2": ("completed", True, 2, 1),
    "edit-1": ("completed", True, 2, 2),
    "edit-2": ("completed", True, 2, 2),
    "setup-1": ("completed", True, 2, 1),
    "idle-fails": ("completed", False, 1, 0),
    "loops": ("max_steps", False, 3, 3),
    "no-check": ("completed", None, 2, 1),
    "bad-setup": ("setup_failed", None, 0, 0),
}


@pytest.mark.slow
def test_a_scripted_batch_records_every_task_once_in_task_order(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    tasks, errors = load_tasks(tasks_file(tmp_path))
    assert [(e.line, "truncated" in e.message) for e in errors] == [(8, True)]
    out = tmp_path / "out" / "results.jsonl"
    returned = run(tasks, workers=4, env=env, results=out)
    assert sorted(r.id for r in returned) == sorted(EXPECTED)
    rows = without_timings(out)
    assert [r["id"] for r in rows] == [t.id for t in tasks]
    got = {
        r["id"]: (r["stop_reason"], r["solved"], r["model_calls"], r["tool_calls"]) for r in rows
    }
    assert got == EXPECTED
    write = rows[0]
    assert write["usage"] == {"input_tokens": 200, "output_tokens": 20, "cost": 0.00024}
    assert write["cost"] == 0.00024
    assert write["error"] is None and write["attempts"] == 1
    assert rows[-1]["error"] == "setup failed (exit status 7)"


def test_each_task_gets_its_own_session_file_beside_the_results(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    tasks, _ = load_tasks(tasks_file(tmp_path))
    out = tmp_path / "results.jsonl"
    run(tasks, workers=3, env=env, results=out)
    sessions = {r.id: r.session for r in read_results(out)}
    assert sessions["bad-setup"] is None
    assert sessions["write-1"] == "results.sessions/write-1.jsonl"
    lines = (tmp_path / sessions["write-1"]).read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert any(e.get("type") == "message" for e in entries)
    # nothing is left in the Runtime's own session folder, nor working copies in the temp dir
    assert not list((tmp_path / "auger-home" / "sessions").glob("*/*.jsonl"))


def test_working_copies_are_removed_unless_kept(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    task = Task("w", "write", model="writer/m", check="test -f answer.txt", permission_mode="auto")
    gone, kept = tmp_path / "gone", tmp_path / "kept"
    gone.mkdir()
    kept.mkdir()
    run([task], env=env, workdirs=gone, results=tmp_path / "gone.jsonl")
    run([task], env=env, workdirs=kept, keep=True, results=tmp_path / "kept.jsonl")
    assert list(gone.iterdir()) == []
    assert [p.name for p in kept.glob("*/w/answer.txt")] == ["answer.txt"]


def test_without_a_results_file_sessions_go_to_a_new_temp_dir(tmp_path: Path) -> None:
    [result] = run(
        [Task("w", "x")], provider=lambda _: ScriptedProvider(["ok"]), env=home_env(tmp_path)
    )
    assert result.session is not None
    session = Path(result.session)
    try:
        assert session.is_absolute() and session.name == "w.jsonl" and session.stat().st_size
    finally:
        shutil.rmtree(session.parents[1])


def test_a_rerun_skips_the_ids_already_in_the_results(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    log = tmp_path / "started.log"
    tasks, _ = load_tasks(tasks_file(tmp_path, log=log))
    out = tmp_path / "results.jsonl"
    run(tasks[:4], env=env, results=out)
    again = run(tasks, env=env, results=out)
    assert sorted(r.id for r in again) == sorted(t.id for t in tasks[4:])
    started = log.read_text().split()
    assert sorted(started) == sorted(t.id for t in tasks)  # each started exactly once
    assert [r["id"] for r in without_timings(out)] == [t.id for t in tasks]


def test_the_time_limit_stops_a_slow_turn(tmp_path: Path) -> None:
    slow = ScriptedProvider([Reply.of(Delay(30), "too late")])
    task = Task("slow", "wait", timeout=0.2, check="true")
    [result] = run(
        [task], provider=lambda _: slow, env=home_env(tmp_path), results=tmp_path / "r.jsonl"
    )
    assert (result.stop_reason, result.solved) == ("time_limit", True)
    assert result.duration < 10


def test_the_cost_limit_stops_a_turn_that_spends_too_much(tmp_path: Path) -> None:
    env = home_env(tmp_path, delay=0.05)  # a model call takes time, as a real one does
    # every reply of the looper costs 0.00012; the third crosses 0.0003
    task = Task("spender", "go", model="looper/m", max_cost=0.0003, max_steps=10)
    [result] = run([task], env=env, results=tmp_path / "r.jsonl")
    assert result.stop_reason == "cost_limit"
    assert result.model_calls == 3


def test_a_model_that_cannot_be_built_is_an_error_of_that_task_only(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    results = run(
        [Task("nope", "x", model="missing/m"), Task("ok", "x", model="idle/m")],
        env=env,
        results=tmp_path / "r.jsonl",
    )
    by_id = {r.id: r for r in results}
    assert by_id["nope"].stop_reason == "error"
    assert by_id["nope"].error is not None and by_id["nope"].error.startswith("config: ")
    assert by_id["ok"].stop_reason == "completed"


def test_a_task_that_breaks_unexpectedly_is_an_error_result_and_the_rest_run(
    tmp_path: Path,
) -> None:
    def provider(task: Task) -> ScriptedProvider:
        if task.id == "boom":
            raise RuntimeError("no provider for you")
        return ScriptedProvider(["ok"])

    results = run(
        [Task("boom", "x"), Task("fine", "x")],
        provider=provider,
        env=home_env(tmp_path),
        results=tmp_path / "r.jsonl",
    )
    by_id = {r.id: r for r in results}
    assert (by_id["boom"].stop_reason, by_id["boom"].error) == (
        "error",
        "RuntimeError: no provider for you",
    )
    assert by_id["fine"].stop_reason == "completed"


async def test_results_stream_as_they_finish(tmp_path: Path) -> None:
    def provider(task: Task) -> ScriptedProvider:
        seconds = {"slow": 0.6, "fast": 0.0}[task.id]
        return ScriptedProvider([Reply.of(Delay(seconds), Call("ls", {})), Reply.of("ok")])

    tasks = [Task("slow", "x"), Task("fast", "x")]
    order = [
        r.id
        async for r in stream(
            tasks,
            workers=2,
            provider=provider,
            env=home_env(tmp_path),
            results=tmp_path / "r.jsonl",
        )
    ]
    assert order == ["fast", "slow"]


async def test_stopping_the_stream_cancels_what_runs_and_keeps_what_finished(
    tmp_path: Path,
) -> None:
    def provider(task: Task) -> ScriptedProvider:
        seconds = 0.0 if task.id == "quick" else 30
        return ScriptedProvider([Reply.of(Delay(seconds), "ok")])

    out = tmp_path / "results.jsonl"
    tasks = [Task("quick", "x"), Task("stuck", "x")]
    results = stream(tasks, workers=2, provider=provider, env=home_env(tmp_path), results=out)
    first = await asyncio.wait_for(anext(results), 10)
    await asyncio.wait_for(results.aclose(), 15)
    assert first.id == "quick"
    assert [r.id for r in read_results(out)] == ["quick"]
