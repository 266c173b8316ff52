"""Every built-in command, through the Runtime API and through `auger -p`."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import CommandOutput
from support.cli import Project, json_lines
from support.runtime import collect, make_runtime


async def said(rt, name: str, args: str = "") -> str:  # type: ignore[no-untyped-def]
    records = [r async for r in rt.run_command(name, args)]
    assert records[-1].type == "turn_end"
    return "\n".join(r.text for r in records if isinstance(r, CommandOutput))


async def test_each_builtin_through_the_runtime(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a1"), Reply.of("b1"), Reply.of("S")])
    rt = make_runtime(
        tmp_path, provider, bundled=True, settings={"compaction": {"keep_recent_tokens": 5}}
    )
    await collect(rt, "one")
    await collect(rt, "two")
    assert "/compact" in await said(rt, "help") and "/skill" not in await said(rt, "help")
    assert "read" in await said(rt, "tools") and "bash" in await said(rt, "tools")
    assert "Tokens:" in await said(rt, "cost")
    session = await said(rt, "session")
    assert rt.session_id in session and "Messages: 4" in session
    assert "Model: scripted/default" in await said(rt, "model")
    await said(rt, "name", "my work")
    assert rt.session.name == "my work"
    tree = await said(rt, "tree")
    assert "user: one" in tree and tree.splitlines()[-1].startswith(">")
    assert await said(rt, "compact") == "Conversation compacted."
    first = rt.session_id
    assert "Forked into session" in await said(rt, "fork")
    assert rt.session_id != first
    listing = await said(rt, "resume")
    assert first in listing
    assert "Resumed" in await said(rt, "resume", first[:5])
    assert rt.session_id == first
    assert await said(rt, "new") == "New session." and rt.messages == []
    await said(rt, "quit")
    assert rt.quit_requested
    assert "Extensions reloaded." in await said(rt, "reload")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/help", "/reload"),
        ("/tools", "grep"),
        ("/cost", "Tokens: 0 in"),
        ("/session", "Messages: 0"),
        ("/model", "Model: s/test"),
        ("/reload", "Extensions reloaded."),
        ("/tree", "The session is empty."),
        ("/resume", "No saved sessions"),
        ("/name groceries", "Session named 'groceries'."),
        ("/new", "New session."),
        ("/fork", "Forked into session"),
        ("/compact", "nothing to compact yet"),
        ("/quit", None),
    ],
)
def test_builtins_through_print_mode(tmp_path: Path, command: str, expected: str | None) -> None:
    project = Project.make(tmp_path)
    project.script([])
    result = project.run("-p", "--json", command)
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    shown = [
        r.get("text") or r.get("message")
        for r in records
        if r["type"] in ("command_output", "notify")
    ]
    assert any(expected in text for text in shown) if expected else shown == []
    assert records[-1]["type"] == "turn_end" and records[-1]["stop_reason"] == "completed"


async def test_tree_moves_to_the_picked_entry(tmp_path: Path) -> None:
    from support.hosts import Answering

    provider = ScriptedProvider([Reply.of("a1"), Reply.of("b1"), Reply.of("c1")])
    host = Answering(capabilities=["ask"])
    rt = make_runtime(tmp_path, provider, bundled=True, host=host)
    from auger.session.entries import MessageEntry
    from auger.session.tree import choices

    await collect(rt, "one")
    first_answer = [e for e in rt.session.branch() if isinstance(e, MessageEntry)][-1].id
    await collect(rt, "two")

    [line] = [label for label, entry in choices(rt.session).items() if entry == first_answer]
    host.answers.append(line)
    assert "Continuing from" in await said(rt, "tree")
    assert rt.session.leaf_id == first_answer
    await collect(rt, "three")
    assert [m.text for m in provider.requests[-1].messages if m.role == "user"][-2:] == [
        "one",
        "three",
    ]
