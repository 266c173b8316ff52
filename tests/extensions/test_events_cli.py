"""Every event of SPEC §2 through `auger -p --json --extension FILE`, a real process each.

`-p` fires every event except `input`, `user_bash`, `model_select` and `compact` (SPEC §2.2);
those are covered through the Runtime API in `test_events.py`. Each run checks several rows, so
the suite stays quick. The session rows are in `test_session_events.py`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from auger.engine.prompt import BASE_PROMPT
from support import chat
from support.cli import Project, json_lines
from support.context import conversation
from support.extensions import STREAM_RECORDS, TURN_WITH_ONE_TOOL_CALL, Extensions
from support.server import FakeServer

USAGE = {"input": 10, "output": 5}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A project and an isolated `AUGER_HOME`."""
    return Project.make(tmp_path)


@pytest.fixture
def exts(tmp_path: Path) -> Extensions:
    """Extension files under `tmp_path`, and the log their handlers write."""
    return Extensions.make(tmp_path)


def serve(project: Project, server: FakeServer) -> None:
    """Point the project's model at `server`, a Chat Completions provider."""
    project.settings(chat.settings(server))
    project.env |= chat.KEY


def run(
    project: Project, extension: Path, prompt: str = "go"
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Run `auger -p --json --extension FILE PROMPT`; the process and its records."""
    result = project.run("-p", "--json", "--extension", str(extension), prompt)
    return result, json_lines(result.stdout)


def after_calls(records: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], str, Any]]:
    """`(call_id, args, content, error_type)` of every `after_tool_call`."""
    return [
        (r["call_id"], r["args"], r["result"]["content"], r["result"]["error_type"])
        for r in records
        if r["type"] == "after_tool_call"
    ]


def test_every_event_in_order(project: Project, exts: Extensions, fake_server: FakeServer) -> None:
    serve(project, fake_server)
    fake_server.queue(chat.tool_calls(("call_1", "echo", {"text": "hi"})), chat.text("Done."))
    result, records = run(project, exts.recorder())
    assert result.returncode == 0, result.stderr
    # turn_end then idle; no input, user_bash, model_select or compact under -p
    assert exts.types() == [
        *TURN_WITH_ONE_TOOL_CALL,
        "agent_end",
        "turn_end",
        "idle",
        "session_end",
        "session_shutdown",
    ]
    # stream records reach handlers as the stream carries them; session_end(close) only there
    observed = exts.seen(*STREAM_RECORDS)
    assert observed[:-1] == records
    assert observed[-1] == {"type": "session_end", "reason": "close", "root": str(project.root)}


def test_observe_only_events_see_their_payloads(project: Project, exts: Extensions) -> None:
    project.script(
        [
            {
                "parts": [
                    {"reasoning": "Use the echo tool."},
                    {"tool": "echo", "args": {"text": "hi"}, "id": "call_1"},
                ],
                "usage": USAGE,
            },
            {"text": "It said hi.", "usage": USAGE},
        ]
    )
    result, records = run(project, exts.recorder())
    assert result.returncode == 0, result.stderr
    root = str(project.root)
    assert exts.one("session_start") == records[0] | {"reason": "new", "root": root}
    assert exts.one("turn_start") == {"type": "turn_start", "text": "go"}
    start = exts.one("before_agent_start")
    assert start["prompt"] == "go" and start["system_prompt"].startswith(BASE_PROMPT)
    assert exts.one("agent_start") == {"type": "agent_start", "prompt": "go"}
    assert exts.one("before_request") == {"type": "before_request", "prompt": "go", "messages": 0}
    assert [(m["kind"], m["text"]) for m in exts.seen("message")] == [
        ("reasoning", "Use the echo tool."),
        ("text", "It said hi."),
    ]
    reasoning = exts.one("reasoning")
    assert reasoning["text"] == "Use the echo tool." and reasoning["elapsed_ms"] >= 0
    usage = {"type": "usage", "input": 10, "output": 5, "cached": 0, "cost": None}
    assert exts.seen("usage") == [usage | {"context_tokens": 15}] * 2
    call = {"name": "echo", "input": {"text": "hi"}, "call_id": "call_1"}
    assert exts.one("tool_call") == {"type": "tool_call", **call}
    assert exts.one("tool_start") == {"type": "tool_start", **call}
    end = exts.one("tool_end")
    assert (end["name"], end["ok"], end["result"], end["detail"]["error_type"]) == (
        "echo",
        True,
        "echo: hi",
        None,
    )
    assert end["elapsed_ms"] >= 0
    assert exts.one("agent_end") == {"type": "agent_end", "text": "It said hi."}
    assert exts.one("turn_end") == records[-1]
    assert exts.one("idle") == {"type": "idle"}
    assert exts.seen("session_end", "session_shutdown") == [
        {"type": "session_end", "reason": "close", "root": root},
        {"type": "session_shutdown", "root": root},
    ]
    assert exts.seen("error") == []


def test_prompt_context_and_request_changes_reach_the_server(
    project: Project, exts: Extensions, fake_server: FakeServer
) -> None:
    serve(project, fake_server)
    fake_server.queue(chat.tool_calls(("call_1", "echo", {"text": "hi"})), chat.text("Done."))
    extension = exts.write(
        "shaping",
        """
        def extension(g):
            g.tool(echo)
            g.on("before_agent_start", lambda e: "Summarize the notes.")
            g.on("before_agent_start", lambda e: record(e) or {"system_prompt": "You are terse."})
            g.on("before_request", lambda e: "first note")
            g.on("before_request", lambda e: record(e) or "second note")
            g.on("context", lambda e: record(e) or e.messages[-1:])
            g.on("before_provider_request", lambda e: {"headers": {"x-team": "tools"}})
            g.on("before_provider_request", lambda e: record(e) or {"body": e.body | {"seed": 7}})
            g.on("after_provider_response", record)
        """,
    )
    result, records = run(project, extension, "summarize")
    assert result.returncode == 0, result.stderr
    assert records[-1]["text"] == "Done."
    assert exts.one("before_agent_start")["prompt"] == "Summarize the notes."
    assert exts.one("before_request")["prompt"] == "Summarize the notes.\n\nfirst note"
    # context: each call sends only the last message; the stored conversation keeps growing
    seen = [(c["step"], len(conversation(c["messages"]))) for c in exts.seen("context")]
    assert seen == [(1, 1), (2, 3)]
    first, second = fake_server.requests
    prompt = "Summarize the notes.\n\nfirst note\n\nsecond note"
    assert first.body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": prompt},
    ]
    assert [m["role"] for m in second.body["messages"]] == ["system", "tool"]
    # before_provider_request: headers merged over the request's, then the body replaced
    for seen in exts.seen("before_provider_request"):
        assert seen["headers"]["x-team"] == "tools" and "authorization" in seen["headers"]
    for sent in (first, second):
        assert sent.headers["x-team"] == "tools"
        assert sent.headers["authorization"] == "Bearer sk-local-test"
        assert sent.body["seed"] == 7
    url = f"{fake_server.url}/v1/chat/completions"
    assert [(r["url"], r["status"]) for r in exts.seen("after_provider_response")] == [
        (url, 200),
        (url, 200),
    ]


def test_tool_call_and_tool_end_returns(project: Project, exts: Extensions) -> None:
    calls = [("c1", "echo", {"text": "hi"}), ("c2", "shout", {}), ("c3", "danger", {})]
    calls += [("c4", "danger", {}), ("c5", "fragile", {})]
    project.script(
        [
            {"parts": [{"tool": name, "args": args, "id": i} for i, name, args in calls]},
            {"text": "ok"},
        ]
    )
    extension = exts.write(
        "guard",
        """
        def guard(event):
            record(event, by="guard")
            if event.name == "echo":
                return {"text": event.input["text"].upper()}
            if event.name == "shout":
                return "shouting is not allowed"
            if event.name == "danger":
                return False
            if event.name == "fragile":
                raise RuntimeError("guard crashed")

        def extension(g):
            g.tool(echo)
            g.on("tool_call", guard)
            g.on("tool_call", lambda e: record(e, by="later"))
            g.on("tool_end", lambda e: e.result + " (checked)")
        """,
    )
    result, records = run(project, extension)
    assert result.returncode == 0, result.stderr
    assert after_calls(records) == [
        ("c1", {"text": "HI"}, "echo: HI (checked)", None),
        ("c2", {}, "ERROR: shouting is not allowed", "blocked"),
        ("c3", {}, "ERROR: an extension blocked danger for this turn.", "blocked"),
        ("c4", {}, "ERROR: an extension blocked danger for this turn.", "blocked"),
        ("c5", {}, "ERROR: tool_call handler failed: guard crashed", "blocked"),
    ]
    assert [r["call_id"] for r in records if r["type"] == "before_tool_call"] == ["c1"]
    assert [(s["by"], s["call_id"]) for s in exts.seen()] == [
        ("guard", "c1"),
        ("later", "c1"),
        ("guard", "c2"),
        ("guard", "c3"),
        ("guard", "c5"),
    ]
    assert exts.seen()[1]["input"] == {"text": "HI"}
    failure = {"type": "notify", "message": "tool_call handler failed: guard crashed"}
    assert failure | {"level": "error"} in records
    assert "auger: error: tool_call handler failed: guard crashed" in result.stderr
    assert records[-1]["stop_reason"] == "completed"


def test_the_chain_rule(project: Project, exts: Extensions) -> None:
    project.script([{"text": "ok"}])
    extension = exts.write(
        "chain",
        """
        def broken(event):
            raise ValueError("no config")

        def count(event):
            return 42

        def extension(g):
            g.on("turn_start", lambda e: record(e, by="first") or False)
            g.on("turn_start", lambda e: record(e, by="never"))
            g.on("agent_start", broken)
            g.on("agent_start", lambda e: record(e, by="after the failure"))
            g.on("before_request", count)
        """,
    )
    result, records = run(project, extension)
    assert result.returncode == 0, result.stderr
    assert [(s["type"], s["by"]) for s in exts.seen()] == [
        ("turn_start", "first"),
        ("agent_start", "after the failure"),
    ]
    failed = "agent_start handler failed: no config"
    ignored = (
        "before_request handler count (chain) returned int 42, but before_request takes a "
        "string (appended to the prompt)"
    )
    assert f"auger: error: {failed}\n" in result.stderr
    assert f"auger: warning: {ignored}; ignored\n" in result.stderr
    assert [(r["level"], r["message"]) for r in records if r["type"] == "notify"] == [
        ("error", failed),
        ("warning", f"{ignored}; ignored"),
    ]
    assert records[-1]["text"] == "ok"


def test_a_cancelled_turn_and_what_p_never_fires(project: Project, exts: Extensions) -> None:
    project.script([])
    extension = exts.write(
        "cancel",
        """
        import asyncio

        async def goodbye(event):
            await asyncio.sleep(0.2)
            record(event)

        def extension(g):
            for name in ["input", "user_bash", "model_select", "turn_start", "agent_start",
                         "agent_end", "turn_end"]:
                g.on(name, record)
            g.on("before_agent_start", lambda e: False)
            g.on("session_shutdown", goodbye)
        """,
    )
    result, records = run(project, extension, "!echo hi")
    assert result.returncode == 1
    assert records[-1]["stop_reason"] == "guardrail_blocked"
    assert "an extension cancelled this turn" in result.stderr
    # a `!command` is a prompt under -p: no input, no user_bash; an awaited shutdown
    assert exts.types() == ["turn_start", "turn_end", "session_shutdown"]
    assert exts.one("turn_start")["text"] == "!echo hi"


def test_error_sees_a_provider_failure(project: Project, exts: Extensions) -> None:
    project.script([{"error": "the request was malformed", "kind": "bad_request"}])
    extension = exts.write("errors", 'def extension(g):\n    g.on("error", record)\n')
    result, records = run(project, extension)
    assert result.returncode == 1
    assert exts.seen() == [{"type": "error", "message": "the request was malformed"}]
    assert records[-1]["error"] == {"kind": "bad_request", "message": "the request was malformed"}
