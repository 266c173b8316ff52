"""A child's permission question reaches the same host, naming the child (SPEC §8): an
`auger rpc` client answers it, and the child's command then runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hosts.test_rpc import Rpc, response
from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


@pytest.fixture
def client(project: Project) -> Iterator[Rpc]:
    running = Rpc(project)
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.wait()


@pytest.mark.slow
def test_a_childs_permission_question_is_answered_by_the_rpc_client(
    project: Project, client: Rpc
) -> None:
    child_call = {"tool": "bash", "args": {"command": "echo made > made.txt"}}
    project.script(
        [
            {"parts": [{"tool": "task", "args": {"tasks": [{"prompt": "make the file"}]}}]},
            {"parts": [child_call]},
            {"text": "the child made it"},
            {"text": "done"},
        ],
        permissions={"mode": "ask"},
    )
    client.send(id=1, type="prompt", text="delegate")
    lines = client.until(lambda line: line["type"] == "request")
    request = lines[-1]
    [start] = [line for line in lines if line["type"] == "subagent_start"]
    assert request["kind"] == "permission"
    asked = request["request"]
    assert asked["tool"] == "bash"
    assert (asked["agent_id"], asked["agent"]) == (start["agent_id"], "general")
    assert asked["title"].startswith("[general] Run echo made")
    client.send(id=2, type="answer", question=request["id"], value="allow_once")
    lines += client.until(response(1))
    assert (project.root / "made.txt").read_text() == "made\n"
    wrapped = [line["record"] for line in lines if line["type"] == "subagent_record"]
    decisions = [r for r in wrapped if r["type"] == "permission_decision"]
    assert [(d["decision"], d["by"]) for d in decisions] == [("allow_once", "user")]
    ends = [line for line in lines if line["type"] == "subagent_end"]
    assert [e["stop_reason"] for e in ends] == ["completed"]
    [turn_end] = [line for line in lines if line["type"] == "turn_end"]
    assert turn_end["text"] == "done"
