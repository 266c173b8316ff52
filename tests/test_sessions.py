"""Sessions through the Runtime: save, restore, fork, new, switch, navigate, labels, names."""

from __future__ import annotations

from pathlib import Path

from auger.llm.messages import AssistantMessage, ToolCall, UserMessage
from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import Notify, SessionStart
from auger.session.compaction import BRANCH_TASK
from auger.session.context import INTERRUPTED
from auger.session.entries import CustomEntry, MessageEntry
from auger.session.paths import list_sessions
from auger.session.store import SessionFile
from auger.session.tree import render
from auger.tools.base import tool
from support.context import conversation
from support.hosts import Watching
from support.runtime import collect, make_runtime

ran: list[str] = []


@tool
def echo(text: str) -> str:
    """Say it back."""
    ran.append(text)
    return f"echo {text}"


def with_echo(g) -> None:  # type: ignore[no-untyped-def]
    g.tool(echo)


async def test_the_file_appears_with_the_first_message_and_restores(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("one"), Reply.of("two")]))
    assert rt.transcript_path is None
    await collect(rt, "first")
    path = rt.transcript_path
    assert path is not None and path.exists()
    assert path.stat().st_mode & 0o777 == 0o600
    provider = ScriptedProvider([Reply.of("three")])
    restored = make_runtime(tmp_path, provider, session=SessionFile.open(path))
    records = await collect(restored, "second")
    assert isinstance(records[0], SessionStart) and records[0].reason == "restore"
    assert records[0].id == rt.session_id == restored.session_id
    assert [m.text for m in conversation(provider.requests[0].messages)] == [
        "first",
        "one",
        "second",
    ]
    again = SessionFile.open(path)
    texts = [e.message.text for e in again.entries if isinstance(e, MessageEntry)]
    assert texts == ["first", "one", "second", "three"]


async def test_no_save_writes_nothing(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("x")]), save=False)
    await collect(rt, "hi")
    assert rt.transcript_path is None
    assert not (tmp_path / "home" / "sessions").exists()


async def test_tool_calls_left_without_results_are_interrupted_never_rerun(tmp_path: Path) -> None:
    path = tmp_path / "crashed.jsonl"
    from auger.session.store import SessionHeader

    session = SessionFile.create(path, SessionHeader(id="crashed", cwd=str(tmp_path)))
    session.append(MessageEntry(UserMessage.of("do it")))
    call = ToolCall("c1", "echo", '{"text": "boom"}')
    session.append(MessageEntry(AssistantMessage((call,), provider="scripted", model="x")))
    session.close()
    provider = ScriptedProvider([Reply.of("ok")])
    ran.clear()
    rt = make_runtime(tmp_path, provider, session=SessionFile.open(path), extensions=[with_echo])
    records = await collect(rt, "continue")
    assert ran == [] and not any(r.type == "after_tool_call" for r in records)
    sent = conversation(provider.requests[0].messages)
    assert [m.role for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[2].is_error and sent[2].text == INTERRUPTED


async def test_the_saved_model_needs_credentials(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("x")]))
    rt.session.append(MessageEntry(UserMessage.of("hi")))
    rt.session.append(
        MessageEntry(AssistantMessage((), provider="anthropic", model="claude-haiku-4-5"))
    )
    path = rt.transcript_path
    settings = {"model": "s/m", "providers": {"s": {"api": "scripted", "script": str(path)}}}
    (tmp_path / "replies.json").write_text("[]")
    settings["providers"]["s"]["script"] = str(tmp_path / "replies.json")
    from auger.runtime import Runtime

    home = tmp_path / "home"
    without = Runtime(
        env={},
        home=home,
        cwd=tmp_path,
        settings=settings,
        bundled=False,
        session=SessionFile.open(path),
    )
    assert without.model.id == "s/m"
    records = await collect(without, "x")
    assert any(
        isinstance(r, Notify) and "anthropic/claude-haiku-4-5 is not available" in r.message
        for r in records
    )
    with_key = Runtime(
        env={"ANTHROPIC_API_KEY": "k"},
        home=home,
        cwd=tmp_path,
        settings=settings,
        bundled=False,
        session=SessionFile.open(path),
    )
    assert with_key.model.id == "anthropic/claude-haiku-4-5"


async def test_fork_starts_a_new_file_from_an_entry(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a1"), Reply.of("b1"), Reply.of("forked")])
    rt = make_runtime(tmp_path, provider)
    await collect(rt, "one")
    first_answer = rt.session.leaf_id
    await collect(rt, "two")
    parent_path, parent_id = rt.transcript_path, rt.session_id
    new_path = await rt.fork(first_answer)
    assert new_path is not None and new_path != parent_path
    assert [m.text for m in conversation(rt.messages)] == ["one", "a1"]
    records = await collect(rt, "three")
    assert records[0].type == "session_start" and records[0].id != parent_id
    reopened = SessionFile.open(new_path)
    assert reopened.header.parent_session_id == parent_id
    assert reopened.header.forked_from == first_answer


async def test_session_before_fork_and_switch_may_cancel(tmp_path: Path) -> None:
    seen: list[tuple[str, object]] = []

    def guard(g) -> None:  # type: ignore[no-untyped-def]
        g.on("session_before_fork", lambda e: seen.append(("fork", e.at)) or False)
        g.on(
            "session_before_switch", lambda e: seen.append(("switch", e.to_dict()["from"])) or False
        )

    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("a")]), extensions=[guard])
    await collect(rt, "one")
    before = rt.session_id
    assert await rt.fork() is None
    assert await rt.new() is False
    assert rt.session_id == before
    assert seen[0] == ("fork", rt.session.leaf_id)
    assert seen[1] == ("switch", str(rt.transcript_path))


async def test_new_and_switch(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a"), Reply.of("b"), Reply.of("c")])
    rt = make_runtime(tmp_path, provider)
    await collect(rt, "in the first")
    first = rt.transcript_path
    assert await rt.new()
    assert rt.messages == []
    await collect(rt, "in the second")
    assert await rt.switch(first)
    records = await collect(rt, "back")
    assert records[0].reason == "restore"
    sent = conversation(provider.requests[-1].messages)
    assert [m.text for m in sent] == ["in the first", "a", "back"]


async def test_navigate_with_a_branch_summary(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of("a1"), Reply.of("b1"), Reply.of("tried two, got b1"), Reply.of("c1")]
    )
    host = Watching()
    rt = make_runtime(tmp_path, provider, host=host)
    await collect(rt, "one")
    anchor = rt.session.leaf_id
    await collect(rt, "two")
    await rt.navigate(anchor, summarize=True)
    label = "summarizing the branch you left"  # the host shows it while the model summarises
    assert host.shown == [("start", label), ("end", label, None)]
    # the summary request continues the branch being left (a cached prefix), then asks
    asked = provider.requests[2].messages
    assert [m.text for m in conversation(asked[:-1])] == ["one", "a1", "two", "b1"]
    assert asked[-1].text.startswith(BRANCH_TASK)
    texts = [m.text for m in conversation(rt.messages)]
    assert texts[:2] == ["one", "a1"] and "tried two, got b1" in texts[2]
    await collect(rt, "three")
    drawn = render(rt.session)
    assert "user: two" in drawn and "user: three" in drawn and "branch_summary" in drawn
    assert drawn.splitlines()[-1].startswith(">")


async def test_names_labels_and_extension_entries(tmp_path: Path) -> None:
    def ext(g) -> None:  # type: ignore[no-untyped-def]
        def on_turn_start(e, ctx) -> None:  # type: ignore[no-untyped-def]
            ctx.append_custom("state", {"n": 1})
            ctx.append_message("note", "remember the milk")

        g.on("turn_start", on_turn_start)

    provider = ScriptedProvider([Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[ext])
    await collect(rt, "hi")
    rt.set_name("groceries")
    rt.label(rt.session.leaf_id, "done")
    sent = [m.text for m in conversation(provider.requests[0].messages)]
    assert sent == ["remember the milk", "hi"]
    entries = SessionFile.open(rt.transcript_path).entries
    assert any(isinstance(e, CustomEntry) and e.data == {"n": 1} for e in entries)
    [summary] = list_sessions(tmp_path / "home", rt.cwd)
    assert summary.name == "groceries" and summary.messages == 2
