"""bench/eval.py runs the suite through `auger batch` with the model it is given and reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.batch import home_env

EVAL = Path(__file__).resolve().parents[2] / "bench" / "eval.py"


@pytest.mark.slow
def test_eval_prints_the_solve_rate_tokens_cost_and_time(tmp_path: Path) -> None:
    env = home_env(tmp_path)
    home = Path(env["AUGER_HOME"])
    # a model that answers the question task (and so fails every other one)
    script = home / "answer.json"
    write = {"tool": "write", "args": {"path": "ANSWER.txt", "content": "5\n"}}
    script.write_text(
        json.dumps(
            [
                {"parts": [write], "usage": {"input": 1000, "output": 100}},
                {"text": "5", "usage": {"input": 1000, "output": 100}},
            ]
        )
    )
    settings = json.loads((home / "settings.json").read_text())
    settings["providers"]["answer"] = {
        "api": "scripted",
        "script": str(script),
        "models": {"m": {"input": 1.0, "output": 2.0}},
    }
    (home / "settings.json").write_text(json.dumps(settings))
    results = tmp_path / "eval" / "results.jsonl"
    done = subprocess.run(
        [sys.executable, str(EVAL), "--model", "answer/m", "--results", str(results)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "solved      1/11 (9%)" in lines
    assert "tokens      22,000 in / 2,200 out" in lines
    assert "cost        $0.0264" in lines
    assert any(line.startswith("time        ") for line in lines)
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["id"] for r in rows if r["solved"]] == ["question"]
