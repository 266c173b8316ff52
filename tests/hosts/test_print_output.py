"""`auger -p` output a person or a script can read: text, --quiet, --output-format json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import Project, json_lines

LOOK_THEN_ANSWER = [
    {"parts": [{"text": "Let me look."}, {"tool": "ls", "args": {"path": "."}}]},
    {"parts": [{"text": "Now the file."}, {"tool": "read", "args": {"path": "missing.txt"}}]},
    "There is one file.",
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    (project.root / "notes.txt").write_text("hello\n")
    project.script(LOOK_THEN_ANSWER)
    return project


def test_text_mode_separates_responses_with_a_blank_line(project: Project) -> None:
    result = project.run("-p", "what is here?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Let me look.\n\nNow the file.\n\nThere is one file.\n"


def test_text_mode_shows_one_line_per_tool_call_on_stderr(project: Project) -> None:
    result = project.run("-p", "what is here?")
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("[ls] . (ok, ")
    assert lines[1].startswith("[read] missing.txt (not_found: ")


def test_quiet_prints_the_final_text_only(project: Project) -> None:
    result = project.run("-p", "--quiet", "what is here?")
    assert result.returncode == 0, result.stderr
    assert (result.stdout, result.stderr) == ("There is one file.\n", "")


def test_output_format_json_is_one_final_object(project: Project) -> None:
    result = project.run("-p", "--output-format", "json", "what is here?")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1
    out = json.loads(result.stdout)
    assert set(out) == {
        "type",
        "result",
        "stop_reason",
        "is_error",
        "exit_code",
        "session_id",
        "duration",
        "model_calls",
        "tool_calls",
        "usage",
        "cost",
    }
    assert out["type"] == "result"
    assert out["result"] == "There is one file."
    assert (out["stop_reason"], out["is_error"], out["exit_code"]) == ("completed", False, 0)
    assert (out["model_calls"], out["tool_calls"]) == (3, 2)
    assert out["usage"]["input_tokens"] > 0 and out["usage"]["output_tokens"] > 0
    assert out["cost"] is None  # the scripted model is not priced
    assert isinstance(out["duration"], float) and 0 < out["duration"] < 30
    session = next((project.home / "sessions").rglob("*.jsonl"))
    assert session.stem == out["session_id"]


def test_output_format_json_reports_a_failure(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script([{"error": "the server fell over", "kind": "bad_request"}])
    result = project.run("-p", "--output-format", "json", "hi")
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert (out["stop_reason"], out["is_error"], out["exit_code"]) == ("error", True, 1)
    assert out["error"]["kind"] == "bad_request"
    assert "the server fell over" in out["error"]["message"]


def test_output_format_json_of_a_command_holds_what_it_said(project: Project) -> None:
    result = project.run("-p", "--output-format", "json", "/cost")
    out = json.loads(result.stdout)
    assert out["result"].startswith("Tokens: 0 in, 0 out")
    assert out["model_calls"] == 0


def test_stream_json_is_the_ndjson_stream(project: Project) -> None:
    streamed = json_lines(project.run("-p", "--output-format", "stream-json", "hi").stdout)
    legacy = json_lines(project.run("-p", "--json", "hi").stdout)
    assert [r["type"] for r in streamed] == [r["type"] for r in legacy]
    assert streamed[0]["type"] == "session_start" and streamed[-1]["type"] == "turn_end"


def test_output_format_json_reports_a_usage_error_too(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    result = project.run("-p", "--output-format", "json", "@missing.md")
    assert result.returncode == 2
    out = json.loads(result.stdout)
    assert (out["stop_reason"], out["is_error"], out["exit_code"]) == ("error", True, 2)
    assert out["error"] == {"kind": "config", "message": "@missing.md: no such file or directory"}
