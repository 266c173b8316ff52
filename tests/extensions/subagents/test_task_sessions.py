"""A child's session is saved beside its parent's and linked from it (SPEC §8): a resumed
parent remembers the child's answer, and `/tree` and `/export` show the child."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extensions.subagents.test_task_cli import Routed, configure, run, task
from support.cli import Project
from support.strict import Step


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


@pytest.mark.slow
def test_a_resumed_session_shows_its_child_in_the_tree_the_export_and_the_context(
    project: Project,
) -> None:
    routes = {
        "parent": [task({"agent": "explore", "prompt": "THETA: read the notes"}), Step("done")],
        "THETA": [Step(tool="read", arguments='{"path": "notes.txt"}'), Step("theta found 42")],
    }
    with Routed(routes) as server:
        configure(project, server)
        records = run(project, "delegate")
    [start] = [r for r in records if r["type"] == "subagent_start"]
    [end] = [r for r in records if r["type"] == "subagent_end"]
    parent_id = records[0]["id"]
    child = Path(end["session"])
    assert child.parent.name == parent_id and child.stem == start["agent_id"]
    header, *entries = [json.loads(line) for line in child.read_text().splitlines()]
    assert header["parent_session_id"] == parent_id
    assert "theta found 42" in json.dumps(entries)

    with Routed({"parent": [Step("it found 42")]}) as again:
        again.issued = server.issued  # the same "server", to the signed thinking sent back
        configure(project, again)
        run(project, "-c", "what did the helper find?")
    sent = json.dumps(again.requests[0].body["messages"])
    assert "theta found 42" in sent and start["agent_id"] in sent

    tree = "".join(r.get("text", "") for r in run(project, "-c", "/tree"))
    assert f"sub-agent {start['agent_id']}: completed, {child}" in tree
    run(project, "-c", "/export out.md")
    exported = (project.root / "out.md").read_text()
    assert f"**Sub-agent {start['agent_id']}**" in exported
    assert "**Prompt:** THETA: read the notes" in exported
    assert '- ⚙ read(path="notes.txt")' in exported
    assert "**Answer** (completed): theta found 42" in exported
