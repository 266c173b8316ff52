"""`auger -p` against session data it did not write: cycles, deep arguments, odd files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.cli import Project, json_lines

DEEP_ARGS = '{"path": ' + "[" * 50_000 + "]" * 50_000 + "}"


def the_session(project: Project) -> Path:
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    return path


@pytest.mark.slow
def test_tool_arguments_nested_50000_deep_end_the_call_and_continue_works(
    tmp_path: Path,
) -> None:
    project = Project.make(tmp_path)
    project.script([{"parts": [{"tool": "read", "args": DEEP_ARGS}]}, "gave up"])
    first = project.run("-p", "--json", "go")
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr and "RecursionError" not in first.stdout
    records = json_lines(first.stdout)
    [after] = [r for r in records if r["type"] == "after_tool_call"]
    assert after["args"] == {}
    assert after["result"]["error_type"] == "validation_error"
    assert "nested deeper than 100 levels" in after["result"]["content"]
    assert records[-1]["type"] == "turn_end"
    assert records[-1]["stop_reason"] == "completed"

    project.script(["still here"])
    again = project.run("-p", "-c", "again")
    assert (again.returncode, again.stdout, again.stderr) == (0, "still here\n", "")


@pytest.mark.slow
def test_continue_on_a_session_with_a_parent_cycle_ends(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["one"])
    assert project.run("-p", "hello").returncode == 0
    path = the_session(project)
    lines = path.read_text().splitlines()
    first = json.loads(lines[1])
    first["parent_id"] = first["id"]  # a self-parent: today -c spins forever
    lines[1] = json.dumps(first)
    lines.append('{"type": "message", "id": 5}')
    path.write_text("\n".join(lines) + "\n")
    project.script(["two"])
    done = project.run("-p", "-c", "again", timeout=20)
    assert done.returncode == 0
    assert done.stdout == "two\n"
    assert done.stderr == f"auger: warning: {path}:{len(lines)}: skipped an invalid entry " + (
        "(Expected `str`, got `int` - at `$.id`)\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "directory"])
def test_session_on_a_file_that_is_not_regular_is_one_line(tmp_path: Path, kind: str) -> None:
    project = Project.make(tmp_path)
    project.script(["never"])
    target = {"/dev/zero": Path("/dev/zero"), "fifo": tmp_path / "f", "directory": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    done = project.run("-p", "--session", str(target), "hi", timeout=20)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"auger: {target} is not a regular file, so it cannot be a session\n"
