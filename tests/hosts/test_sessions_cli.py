"""Sessions from the command line: crash safety, continue, resume, listing."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from support.cli import Project, json_lines
from support.context import conversation
from support.server import FakeServer, Reply, sse

CHUNK = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chat_text(*pieces: str) -> list[bytes]:
    """A chat-completions stream, one SSE chunk per piece (then the end)."""
    chunks = [
        sse(CHUNK | {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        for p in pieces
    ]
    chunks.append(
        sse(
            CHUNK | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            CHUNK | {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}},
            done=True,
        )
    )
    return chunks


@pytest.fixture
def project(tmp_path: Path, fake_server: FakeServer) -> Project:
    project = Project.make(tmp_path)
    project.settings(
        {
            "model": "local/m",
            "providers": {
                "local": {"api": "chat-completions", "base_url": f"{fake_server.url}/v1"}
            },
        }
    )
    return project


@pytest.mark.slow
def test_sigkill_mid_stream_then_continue_loses_only_the_reply_in_flight(
    project: Project, fake_server: FakeServer
) -> None:
    fake_server.queue(Reply(chunks=chat_text("Hello", " never finished"), chunk_delay=3))
    proc = subprocess.Popen(
        project.command("-p", "--json", "first prompt"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"text_delta"' in line:
                os.kill(proc.pid, signal.SIGKILL)
                break
        proc.wait(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGKILL
    fake_server.queue(Reply(chunks=chat_text("Continued.")))
    result = project.run("-p", "-c", "next prompt")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Continued.\n"
    sent = fake_server.requests[1].body["messages"]
    assert [(m["role"], m["content"]) for m in conversation(sent[1:])] == [
        ("user", "first prompt"),
        ("user", "next prompt"),
    ]
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    # custom: the checkpoints; custom_message: the context message
    kept = [line["type"] for line in lines if line["type"] not in ("custom", "custom_message")]
    assert kept == ["session", "message", "message", "message"]


def test_sessions_listing_resume_by_prefix_and_errors(
    project: Project, fake_server: FakeServer
) -> None:
    fake_server.queue(*(Reply(chunks=chat_text(t)) for t in ("one", "two", "three")))
    assert project.run("-p", "a first session").returncode == 0
    listing = project.run("sessions", "--json")
    [summary] = [json.loads(line) for line in listing.stdout.splitlines()]
    assert (summary["title"], summary["messages"]) == ("a first session", 2)
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
    assert iso.fullmatch(summary["created"]) and iso.fullmatch(summary["modified"])
    table = project.run("sessions")
    assert summary["id"] in table.stdout and "a first session" in table.stdout
    resumed = project.run("-p", "--json", "-r", summary["id"][:6], "more")
    assert resumed.returncode == 0, resumed.stderr
    start = json_lines(resumed.stdout)[0]
    assert (start["type"], start["reason"], start["id"]) == (
        "session_start",
        "restore",
        summary["id"],
    )
    by_path = project.run("-p", "--session", summary["path"], "--no-save", "last")
    assert by_path.returncode == 0, by_path.stderr
    sent = [m["content"] for m in conversation(fake_server.requests[2].body["messages"][1:])]
    assert sent == ["a first session", "one", "more", "two", "last"]
    assert json.loads(project.run("sessions", "--json").stdout)["messages"] == 4
    missing = project.run("-p", "-r", "zzzz", "hi")
    assert missing.returncode == 2 and "no session id starts with 'zzzz'" in missing.stderr
    (project.root.parent / "other").mkdir()
    elsewhere = Project.make(project.root.parent / "other")
    nothing = elsewhere.run("-p", "-c", "hi")
    assert nothing.returncode == 2 and "no saved session to continue" in nothing.stderr
    assert "a first session" in project.run("sessions", "--all").stdout
