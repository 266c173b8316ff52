"""One task's Runtime, built by `loader.build`: the batch's settings with the task's
permission mode over them; and
the sweep that removes what a batch's killed workers left."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auger import Reply, ScriptedProvider
from auger.batch.execute import Options, options_for, sweep
from auger.batch.tasks import Task
from auger.loader import build


async def settings_of(task: Task, options: Options, workdir: Path) -> dict[str, Any]:
    """The settings in force in the Runtime one task gets (built, then closed)."""
    provider = ScriptedProvider([Reply.of("done")])
    runtime = await build(options_for(task, options, workdir), provider=provider)
    try:
        return dict(runtime.settings)
    finally:
        await runtime.close()


def isolated(tmp: Path, **fields: Any) -> Options:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    return Options(home=str(home), env={"HOME": str(tmp)}, **fields)


async def test_without_a_mode_the_batch_settings_are_the_runtime_s(tmp_path: Path) -> None:
    given = {"retry": {"attempts": 2}}
    got = await settings_of(Task("t", "p"), isolated(tmp_path, settings=given), tmp_path)
    assert got["retry"] == {"attempts": 2} and got["permissions"] == {"allow": [], "deny": []}


async def test_a_mode_goes_over_the_batch_settings(tmp_path: Path) -> None:
    given = {"permissions": {"mode": "ask", "allow": ["read"]}}
    task = Task("t", "p", permission_mode="auto")
    got = await settings_of(task, isolated(tmp_path, settings=given), tmp_path)
    assert got["permissions"] == {"mode": "auto", "allow": ["read"], "deny": []}
    assert given["permissions"]["mode"] == "ask"


async def test_a_mode_goes_over_the_settings_files_of_home(tmp_path: Path) -> None:
    options = isolated(tmp_path)
    assert options.home is not None
    providers = {"s": {"api": "scripted", "models": {"m": {}}}}
    settings = {"model": "s/m", "providers": providers}
    (Path(options.home) / "settings.json").write_text(json.dumps(settings))
    task = Task("t", "p", permission_mode="accept-edits")
    got = await settings_of(task, options, tmp_path)
    assert got["model"] == "s/m" and got["providers"] == providers
    assert got["permissions"]["mode"] == "accept-edits"


async def test_the_task_mode_wins_over_the_batch_default(tmp_path: Path) -> None:
    options = isolated(tmp_path, settings={}, permission_mode="read-only")
    got = await settings_of(Task("t", "p"), options, tmp_path)
    assert got["permissions"]["mode"] == "read-only"
    got = await settings_of(Task("t", "p", permission_mode="auto"), options, tmp_path)
    assert got["permissions"]["mode"] == "auto"


def test_the_sweep_removes_only_this_batch_s_working_copies(tmp_path: Path) -> None:
    names = ["auger-batch-ab12-x1", "auger-batch-ab12-y2", "auger-batch-cd34-z3", "auger-batch-q"]
    for name in names:
        (tmp_path / name / "task").mkdir(parents=True)
        (tmp_path / name / "task" / "f.txt").write_text("left")
    sweep(Options(root=str(tmp_path), tag="ab12", keep=True))
    assert len(list(tmp_path.iterdir())) == 4  # --keep keeps them all
    sweep(Options(root=str(tmp_path), tag="ab12"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["auger-batch-cd34-z3", "auger-batch-q"]
