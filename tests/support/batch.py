"""A scripted batch for the tests: an isolated AUGER_HOME whose settings declare one scripted
provider per kind of task, and a tasks file covering every way a task can end."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

USAGE = {"input": 100, "output": 10}
PRICED = {"input": 1.0, "output": 2.0}  # USD per million tokens


def _write(path: str, content: str) -> dict[str, Any]:
    return {
        "parts": [{"tool": "write", "args": {"path": path, "content": content}}],
        "usage": USAGE,
    }


def _done(text: str = "done") -> dict[str, Any]:
    return {"text": text, "usage": USAGE}


SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "writer": [_write("answer.txt", "42\n"), _done()],
    "editor": [
        {
            "parts": [
                {"tool": "read", "args": {"path": "calc.py"}},
                {
                    "tool": "edit",
                    "args": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                },
            ],
            "usage": USAGE,
        },
        _done(),
    ],
    "idle": [_done("I did nothing")],
    "looper": [{"parts": [{"tool": "ls", "args": {}}], "usage": USAGE}] * 10,
}


def home_env(tmp: Path, *, delay: float = 0.0) -> dict[str, str]:
    """An environment whose AUGER_HOME holds the scripts; `delay` slows every reply."""
    home = tmp / "auger-home"
    home.mkdir(parents=True, exist_ok=True)
    providers = {}
    for name, replies in SCRIPTS.items():
        if delay:
            replies = [{**r, "parts": [{"delay": delay}, *r.get("parts", [r])]} for r in replies]
        script = home / f"{name}.json"
        script.write_text(json.dumps(replies))
        providers[name] = {"api": "scripted", "script": str(script), "models": {"m": PRICED}}
    (home / "settings.json").write_text(json.dumps({"providers": providers}))
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "AUGER_HOME": str(home),
        "PYTHONDONTWRITEBYTECODE": "1",
        "RAY_AUTH_MODE": "disabled",
    }


def tasks_file(tmp: Path, *, log: Path | None = None) -> Path:
    """Nine task lines and one broken one. With `log`, each task's setup appends its id there
    (so a test can count how many times each started)."""
    repo = tmp / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    add_ok = "python3 -c 'from calc import add; assert add(2, 3) == 5'"

    def task(id: str, model: str, **fields: Any) -> str:
        if log is not None:
            fields["setup"] = f"echo {id} >> {log}; " + fields.get("setup", "true")
        line = {"id": id, "prompt": f"do {id}", "model": f"{model}/m", "permission_mode": "auto"}
        return json.dumps(line | fields)

    lines = [
        task("write-1", "writer", check="grep -qx 42 answer.txt"),
        task("write-2", "writer", check="test -s answer.txt"),
        task("edit-1", "editor", path="repo", check=add_ok),
        task("edit-2", "editor", path="repo", check=add_ok, max_steps=5),
        task("setup-1", "writer", setup="mkdir docs", check="test -d docs -a -f answer.txt"),
        task("idle-fails", "idle", check="test -f answer.txt"),
        task("loops", "looper", max_steps=3, check="test -f answer.txt"),
        '{"id": "broken", "prompt": ',
        task("no-check", "writer"),
        task("bad-setup", "writer", setup="exit 7", check="true"),
    ]
    path = tmp / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def without_timings(results: Path) -> list[dict[str, Any]]:
    """A results file's lines with `duration` taken out."""
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    for row in rows:
        row.pop("duration")
    return rows
