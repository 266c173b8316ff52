"""Bytes that are not UTF-8 — in file names, on stdin — reach the model escaped, are saved, and
never end a turn."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support.cli import Project, json_lines

NAME = os.fsdecode(b"caf\xe9.txt")


def saved_lines(project: Project) -> list[dict]:
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_a_latin1_file_name_in_ls_find_and_grep_is_escaped_and_saved(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    (project.root / NAME).write_bytes(b"hello caf\xe9\n")
    calls = [
        {"tool": "ls", "args": {}},
        {"tool": "find", "args": {"pattern": "*.txt"}},
        {"tool": "grep", "args": {"pattern": "hello"}},
    ]
    project.script([{"parts": calls}, "done"])
    done = project.run("-p", "--json", "look")
    assert (done.returncode, done.stderr) == (0, "")
    results = [r["result"] for r in json_lines(done.stdout) if r["type"] == "after_tool_call"]
    assert [r["content"] for r in results] == [
        "caf\\xe9.txt",
        "caf\\xe9.txt",
        "caf\\xe9.txt:1:hello caf\ufffd",
    ]
    messages = [e["message"] for e in saved_lines(project)[1:] if e["type"] == "message"]
    saved = [m for m in messages if m["role"] == "tool"]
    assert [m["content"][0]["text"] for m in saved] == [r["content"] for r in results]
    project.script(["again"])
    assert project.run("-p", "-c", "more").stdout == "again\n"


@pytest.mark.slow
def test_latin1_on_stdin_reaches_the_model_escaped(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["reviewed"])
    done = subprocess.run(
        project.command("-p", "review this"),
        cwd=project.root,
        env=project.env,
        input=b"-caf\xe9\n+caf\xc3\xa9\n",
        capture_output=True,
        timeout=30,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"reviewed\n", b"")
    messages = [e["message"] for e in saved_lines(project) if e["type"] == "message"]
    [user] = [m for m in messages if m["role"] == "user"]
    assert user["content"][0]["text"] == "review this\n\n-caf\\xe9\n+café\n"
