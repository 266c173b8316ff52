"""The evaluation suite is sound: every task's check fails on the starting directory and
passes once its reference solution (`<task>/solution/`, laid over it) is in place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auger.batch.tasks import Task, load_tasks
from auger.batch.workdir import check, materialise

SUITE = Path(__file__).resolve().parents[2] / "bench" / "tasks"
TASKS, ERRORS = load_tasks(SUITE / "tasks.jsonl")
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}


def test_the_suite_has_at_least_ten_tasks_and_no_bad_line() -> None:
    assert ERRORS == []
    assert len(TASKS) >= 10
    assert all(t.check and t.max_steps for t in TASKS)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_the_check_fails_before_and_passes_after_the_reference_solution(
    task: Task, tmp_path: Path
) -> None:
    solution = SUITE / task.id.replace("-", "_") / "solution"
    assert solution.is_dir(), f"{task.id} has no reference solution"
    work = tmp_path / task.id
    work.mkdir()
    await materialise(task, work, ENV)
    before = await check(task, work, ENV)
    assert before is not None and not before.ok, f"{task.id}: the check passes unsolved"
    shutil.copytree(solution, work, dirs_exist_ok=True)
    after = await check(task, work, ENV)
    assert after is not None and after.ok, f"{task.id}: {after.output if after else ''}"
