"""Golden tests: the exact `auger -p --json` record sequence for the cases users script against.

Set AUGER_UPDATE_GOLDEN=1 to rewrite the files in golden/ (then read the diff before committing).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines, normalized

GOLDEN = Path(__file__).parent / "golden"
USAGE = {"input": 10, "output": 5}


def check_golden(name: str, records: list[dict[str, Any]]) -> None:
    path = GOLDEN / f"{name}.jsonl"
    lines = [json.dumps(r, ensure_ascii=False) for r in normalized(records)]
    if os.environ.get("AUGER_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
    assert lines == path.read_text().splitlines()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def test_plain_text(project: Project) -> None:
    project.script([{"text": "Hello, world.", "usage": USAGE}])
    result = project.run("-p", "--json", "say hello")
    assert result.returncode == 0, result.stderr
    check_golden("plain_text", json_lines(result.stdout))


def test_reasoning_then_text(project: Project) -> None:
    project.script(
        [{"parts": [{"reasoning": "Two plus two is four."}, {"text": "4"}], "usage": USAGE}]
    )
    result = project.run("-p", "--json", "what is 2+2?")
    assert result.returncode == 0, result.stderr
    check_golden("reasoning_then_text", json_lines(result.stdout))


def test_two_tool_calls_one_runs_one_unknown(project: Project) -> None:
    (project.root / "notes.txt").write_text("alpha\nbeta\n")
    project.script(
        [
            {
                "parts": [
                    {"tool": "read", "args": {"path": "notes.txt"}, "id": "call_1"},
                    {"tool": "teleport", "args": {"to": "mars"}, "id": "call_2"},
                ],
                "usage": USAGE,
            },
            {"text": "Read it.", "usage": USAGE},
        ]
    )
    result = project.run("-p", "--json", "read notes")
    assert result.returncode == 0, result.stderr
    check_golden("two_tool_calls", json_lines(result.stdout))


def test_arguments_that_are_not_a_json_object(project: Project) -> None:
    project.script(
        [
            {"parts": [{"tool": "read", "args": "[1, 2]", "id": "call_1"}], "usage": USAGE},
            {"text": "Sorry.", "usage": USAGE},
        ]
    )
    result = project.run("-p", "--json", "go")
    assert result.returncode == 0, result.stderr
    check_golden("arguments_not_an_object", json_lines(result.stdout))


def test_max_steps_reached(project: Project) -> None:
    (project.root / "notes.txt").write_text("alpha\n")
    call = {"parts": [{"tool": "read", "args": {"path": "notes.txt"}}], "usage": USAGE}
    project.script([call, call, call])
    result = project.run("-p", "--json", "--max-steps", "2", "loop")
    assert result.returncode == 3, result.stderr
    check_golden("max_steps", json_lines(result.stdout))
    assert "max_steps" in result.stderr


def test_cancel_mid_stream(project: Project) -> None:
    project.script(
        [{"parts": [{"text": "Hello"}, {"delay": 30}, {"text": "never"}], "usage": USAGE}]
    )
    proc = subprocess.Popen(
        project.command("-p", "--json", "go"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if '"text_done"' in line:
                proc.send_signal(signal.SIGINT)
                break
        rest, _ = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 130
    check_golden("cancel_mid_stream", json_lines("".join(lines) + rest))
