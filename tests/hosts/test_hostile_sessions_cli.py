"""`auger -p` against session data it did not write: cycles, deep arguments, odd files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support import chat
from support.cli import Project, json_lines
from support.server import FakeServer

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


def _deepen_the_stored_call(path: Path) -> int:
    """Put `DEEP_ARGS` in the stored tool call of the session at `path`; its line number."""
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        entry = json.loads(line)
        message = entry.get("message") or {}
        calls = [p for p in message.get("content", []) if p.get("type") == "tool_call"]
        if calls:
            calls[0]["arguments"] = DEEP_ARGS
            lines[number - 1] = json.dumps(entry)
            path.write_text("\n".join(lines) + "\n")
            return number
    raise AssertionError("no stored tool call")


@pytest.mark.slow
def test_a_stored_call_nested_50000_deep_is_cut_on_load_and_continue_works(
    tmp_path: Path,
) -> None:
    project = Project.make(tmp_path)
    with FakeServer() as server:
        project.settings(chat.settings(server))
        project.env |= chat.KEY
        server.queue(chat.tool_calls(("c1", "ls", {})), chat.text("one"))
        assert project.run("-p", "hello").returncode == 0
        path = the_session(project)
        number = _deepen_the_stored_call(path)
        for answer in ("two", "three"):  # every later -c, not only the first
            server.queue(chat.text(answer))
            done = project.run("-p", "-c", "again")
            assert (done.returncode, done.stdout) == (0, f"{answer}\n"), done.stderr
            assert done.stderr == (
                f"auger: warning: {path}:{number}: skipped an invalid entry "
                "(tool call c1: arguments nested deeper than 100 levels)\n"
            )
        sent = [m for m in server.requests[-1].body["messages"] if m["role"] != "system"]
        # the cut entry's children hang from its parent; its orphaned result is not sent
        assert [m["role"] for m in sent] == [
            "user",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
        ]
        assert "hello" in json.dumps(sent[1])  # after the context message


@pytest.mark.slow
def test_a_live_call_nested_50000_deep_never_bricks_continue(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    with FakeServer() as server:
        project.settings(chat.settings(server))
        project.env |= chat.KEY
        deep = chat.tool_calls(("c1", "read", {}))
        deep.body = deep.body.replace(b'"{}"', json.dumps(DEEP_ARGS).encode())
        server.queue(deep, chat.text("gave up"))
        first = project.run("-p", "go")
        assert (first.returncode, first.stdout) == (0, "gave up\n"), first.stderr
        server.queue(chat.text("still here"))
        again = project.run("-p", "-c", "again")
        assert (again.returncode, again.stdout) == (0, "still here\n"), again.stderr


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
