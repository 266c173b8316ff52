"""Plan mode (`--permission-mode plan`, read-only): reads and read-only commands run, writes
are refused, and `propose_plan` asks the user — approved, the mode switches and the edit is
made in the same turn; rejected, the feedback reaches the model; headless, the turn ends with
the plan as its result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hosts.test_rpc import Rpc, response
from support.cli import Project, json_lines

PLAN = "1. Write hello.txt saying hi."
LS = {"tool": "bash", "args": {"command": "ls"}}
WRITE = {"tool": "write", "args": {"path": "hello.txt", "content": "hi\n"}}
PROPOSE = {"tool": "propose_plan", "args": {"plan": PLAN}}
VARIANTS = [
    pytest.param(["--allow", "bash(ls:*)"], id="ls-allowed-by-a-rule"),
    pytest.param([], id="ls-read-only-by-the-shell-analysis"),
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project.make(tmp_path)
    (made.root / "notes.txt").write_text("notes\n")
    return made


@pytest.fixture
def clients(project: Project) -> Iterator[list[Rpc]]:
    started: list[Rpc] = []
    yield started
    for client in started:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


def records_of(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["type"] == kind]


@pytest.mark.slow
@pytest.mark.parametrize("extra", VARIANTS)
def test_an_approved_plan_switches_the_mode_and_the_edit_is_made_in_the_same_turn(
    project: Project, clients: list[Rpc], extra: list[str]
) -> None:
    project.script(
        [{"parts": [p]} for p in (LS, WRITE, PROPOSE, WRITE)] + [{"text": "Done."}],
        permissions={},
    )
    clients.append(Rpc(project, "--permission-mode", "plan", *extra))
    client = clients[0]
    client.send(id=1, type="prompt", text="plan, then do it")
    lines = client.until(lambda line: line["type"] == "request")
    asked = lines[-1]
    assert asked["kind"] == "ask" and asked["question"] == "Approve this plan?"
    assert asked["options"][0] == "Approve, accept edits"
    assert not (project.root / "hello.txt").exists()
    client.send(id=2, type="answer", question=asked["id"], value="Approve, accept edits")
    lines += client.until(response(1))
    results = [r["result"] for r in records_of(lines, "after_tool_call")]
    assert "notes.txt" in results[0]["content"] and results[0]["error_type"] is None
    assert results[1]["error_type"] == "blocked"
    assert results[2]["content"].startswith("The user approved the plan; the permission mode")
    assert results[3]["error_type"] is None
    assert (project.root / "hello.txt").read_text() == "hi\n"
    plans = records_of(lines, "plan")
    assert [(p["decision"], p.get("mode")) for p in plans] == [
        ("proposed", None),
        ("approved", "accept-edits"),
    ]
    [end] = records_of(lines, "turn_end")
    assert (end["stop_reason"], end["text"]) == ("completed", "Done.")


@pytest.mark.slow
def test_a_rejected_plan_tells_the_model_why_and_the_mode_stays(
    project: Project, clients: list[Rpc]
) -> None:
    project.script(
        [{"parts": [PROPOSE]}, {"parts": [WRITE]}, {"text": "Replanning."}], permissions={}
    )
    clients.append(Rpc(project, "--permission-mode", "plan"))
    client = clients[0]
    client.send(id=1, type="prompt", text="plan it")
    asked = client.until(lambda line: line["type"] == "request")[-1]
    client.send(id=2, type="answer", question=asked["id"], value="Reject, with feedback")
    why = client.until(lambda line: line["type"] == "request")[-1]
    assert why["question"] == "What should change?"
    client.send(id=3, type="answer", question=why["id"], value="call it goodbye.txt")
    lines = client.until(response(1))
    results = [r["result"] for r in records_of(lines, "after_tool_call")]
    assert results[0]["content"].startswith("The user rejected the plan: call it goodbye.txt.")
    assert results[1]["error_type"] == "blocked"
    assert not (project.root / "hello.txt").exists()
    assert records_of(lines, "plan")[-1]["feedback"] == "call it goodbye.txt"


@pytest.mark.slow
def test_headless_plan_mode_ends_with_the_plan_as_the_result(project: Project) -> None:
    project.script([{"parts": [LS]}, {"parts": [PROPOSE]}, {"parts": [WRITE]}], permissions={})
    done = project.run("-p", "--json", "--permission-mode", "plan", "--allow", "bash(ls:*)", "go")
    assert done.returncode == 0, done.stderr
    records = json_lines(done.stdout)
    end = records[-1]
    assert (end["type"], end["stop_reason"], end["text"]) == ("turn_end", "completed", PLAN)
    assert [r["decision"] for r in records_of(records, "plan")] == ["proposed"]
    assert len(records_of(records, "after_tool_call")) == 2  # no model call after the plan
    assert not (project.root / "hello.txt").exists()
    for shown in ("--quiet", "--output-format=text"):
        printed = project.run("-p", shown, "--permission-mode", "plan", "go")
        assert printed.returncode == 0 and printed.stdout.strip() == PLAN, printed.stderr
