"""One task's Runtime settings: the batch's, with the task's permission mode over them; and
the sweep that removes what a batch's killed workers left."""

from __future__ import annotations

import json
from pathlib import Path

from auger.batch.execute import Options, settings_for, sweep
from auger.batch.tasks import Task


def test_without_a_mode_the_batch_settings_pass_through_untouched(tmp_path: Path) -> None:
    given = {"model": "a/b"}
    assert settings_for(Task("t", "p"), Options(settings=given), tmp_path) is given
    assert settings_for(Task("t", "p"), Options(), tmp_path) is None  # the Runtime loads them


def test_a_mode_goes_over_the_batch_settings(tmp_path: Path) -> None:
    given = {"model": "a/b", "permissions": {"mode": "ask", "allow": ["read"]}}
    task = Task("t", "p", permission_mode="auto")
    assert settings_for(task, Options(settings=given), tmp_path) == {
        "model": "a/b",
        "permissions": {"mode": "auto", "allow": ["read"]},
    }
    assert given["permissions"]["mode"] == "ask"


def test_a_mode_goes_over_the_settings_of_home_and_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"model": "s/m", "providers": {"s": {}}}))
    task = Task("t", "p", permission_mode="accept-edits")
    got = settings_for(task, Options(home=str(home), env={}), tmp_path)
    assert got is not None
    assert got["model"] == "s/m" and got["providers"] == {"s": {}}
    assert got["permissions"] == {"mode": "accept-edits"}


def test_the_task_mode_wins_over_the_batch_default(tmp_path: Path) -> None:
    options = Options(settings={}, permission_mode="read-only")
    assert settings_for(Task("t", "p"), options, tmp_path) == {"permissions": {"mode": "read-only"}}
    task = Task("t", "p", permission_mode="auto")
    assert settings_for(task, options, tmp_path) == {"permissions": {"mode": "auto"}}


def test_the_sweep_removes_only_this_batch_s_working_copies(tmp_path: Path) -> None:
    names = ["auger-batch-ab12-x1", "auger-batch-ab12-y2", "auger-batch-cd34-z3", "auger-batch-q"]
    for name in names:
        (tmp_path / name / "task").mkdir(parents=True)
        (tmp_path / name / "task" / "f.txt").write_text("left")
    sweep(Options(root=str(tmp_path), tag="ab12", keep=True))
    assert len(list(tmp_path.iterdir())) == 4  # --keep keeps them all
    sweep(Options(root=str(tmp_path), tag="ab12"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auger-batch-cd34-z3", "auger-batch-q"]
