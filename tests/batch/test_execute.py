"""One task's Runtime settings: the batch's, with the task's permission mode over them."""

from __future__ import annotations

import json
from pathlib import Path

from auger.batch.execute import Options, settings_for
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
