"""Compaction and context accounting, with the scripted provider and tiny context windows."""

from __future__ import annotations

from pathlib import Path

from auger.llm.messages import AssistantMessage, ToolResultMessage, UserMessage
from auger.llm.provider import Model
from auger.llm.scripted import Call, Fail, Reply, ScriptedProvider
from auger.llm.usage import Usage
from auger.records import Compact, Notify
from auger.session.compaction import SUMMARY_TASK
from auger.session.context import COMPACTION_PREFIX, is_context
from auger.session.entries import CompactionEntry, MessageEntry
from auger.tools.base import tool
from support.context import conversation
from support.runtime import collect, make_runtime

TINY = Model("scripted", "tiny", "scripted", context_window=4000)
SETTINGS = {"compaction": {"reserve_tokens": 1000, "keep_recent_tokens": 5}}


@tool
def echo(text: str) -> str:
    """Say it back."""
    return f"echo {text}"


def runtime(tmp_path: Path, replies: list[Reply], settings: dict | None = None, **kw):  # type: ignore[no-untyped-def]
    provider = ScriptedProvider(replies)
    rt = make_runtime(
        tmp_path,
        provider,
        extensions=[lambda g: g.tool(echo), *kw.pop("extensions", [])],
        settings=SETTINGS if settings is None else settings,
        model=kw.pop("model", TINY),
        **kw,
    )
    return rt, provider


def is_summary_request(request) -> bool:  # type: ignore[no-untyped-def]
    return request.messages[-1].text.startswith(SUMMARY_TASK)


async def test_compaction_runs_between_two_tool_rounds_of_one_run(tmp_path: Path) -> None:
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of(Call("echo", {"text": "x"}, "c1"), usage=Usage(3100, 50)),
            Reply.of("SUMMARY-1"),
            Reply.of("done"),
        ],
    )
    records = await collect(rt, "a long task " * 50)
    types = [r.type for r in records]
    assert types.index("after_tool_call") < types.index("compact") < len(types) - 1
    compact = next(r for r in records if isinstance(r, Compact))
    assert (compact.dropped, compact.kept, compact.automatic) == (1, 2, True)
    assert is_summary_request(provider.requests[1])
    assert records[-1].stop_reason == "completed" and records[-1].text == "done"
    # the exact messages sent after the compaction
    sent = provider.requests[2].messages
    assert isinstance(sent[0], UserMessage) and sent[0].text == COMPACTION_PREFIX + "SUMMARY-1"
    assert is_context(sent[1])  # summarised away with the rest, it still holds: sent again
    assert isinstance(sent[2], AssistantMessage) and sent[2].tool_calls[0].call_id == "c1"
    assert isinstance(sent[3], ToolResultMessage) and sent[3].text == "echo x"
    assert len(sent) == 4
    # the summary call is paid for by the turn
    assert records[-1].usage.input_tokens > 3100


async def test_a_mid_turn_compaction_keeps_the_context_message(tmp_path: Path) -> None:
    rules = lambda g: g.prompt("rules", "Run make lint before you finish.", context=True)  # noqa: E731
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of(Call("echo", {"text": "x"}, "c1"), usage=Usage(3100, 50)),
            Reply.of("SUMMARY-1"),
            Reply.of(Call("echo", {"text": "y"}, "c2")),
            Reply.of("done"),
            Reply.of("again"),
        ],
        extensions=[rules],
    )
    await collect(rt, "a long task " * 50)
    after = provider.requests[2].messages
    assert after[0].text == COMPACTION_PREFIX + "SUMMARY-1"
    assert "Run make lint" in after[1].text  # AGENTS.md and the like hold after the summary
    assert [m.text for m in provider.requests[3].messages[:2]] == [m.text for m in after[:2]]
    await collect(rt, "next")  # the same context: not sent a second time
    sent = provider.requests[4].messages
    assert sum("Run make lint" in m.text for m in sent if isinstance(m, UserMessage)) == 1


async def test_the_summary_request_asks_for_the_structured_summary(tmp_path: Path) -> None:
    rt, provider = runtime(
        tmp_path,
        [Reply.of("a1"), Reply.of("b1"), Reply.of("SUMMARY")],
        bundled=True,
    )
    await collect(rt, "first question")
    await collect(rt, "second question")
    records = [r async for r in rt.run_command("compact", "focus on the tests")]
    last, summary = provider.requests[1], provider.requests[2]
    # the conversation as it was last sent, up to the kept part, then the request for it
    assert (summary.system, summary.tools) == (last.system, last.tools)
    assert summary.messages[:-1] == last.messages[: len(summary.messages) - 1]
    assert [m.text for m in conversation(summary.messages[:-1])] == ["first question", "a1"]
    text = summary.messages[-1].text
    for section in (
        "## Goal",
        "## Constraints and preferences",
        "### Done",
        "### In progress",
        "### Blocked",
        "## Key decisions",
        "## Next steps",
        "## Critical context",
        "## Files read",
        "## Files modified",
    ):
        assert section in text
    assert "focus on: focus on the tests" in text
    assert any(isinstance(r, Compact) and not r.automatic for r in records)


async def test_a_second_compaction_updates_the_first_summary(tmp_path: Path) -> None:
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of("a1"),
            Reply.of("b1"),
            Reply.of("SUMMARY-1"),
            Reply.of("c1"),
            Reply.of("d1"),
            Reply.of("SUMMARY-2"),
        ],
    )
    await collect(rt, "one")
    await collect(rt, "two")
    assert await rt.compact()
    await collect(rt, "three")
    await collect(rt, "four")
    assert await rt.compact()
    update = provider.requests[5].messages
    assert update[0].text == COMPACTION_PREFIX + "SUMMARY-1" and "Update it" in update[-1].text
    assert "one" not in [m.text for m in update]  # already in the first summary
    assert rt.messages[0].text == COMPACTION_PREFIX + "SUMMARY-2"
    compactions = [e for e in rt.session.entries if isinstance(e, CompactionEntry)]
    assert [c.summary for c in compactions] == ["SUMMARY-1", "SUMMARY-2"]


async def test_overflow_triggers_one_compact_and_retry(tmp_path: Path) -> None:
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of("a1"),
            Reply.of(Fail("context_overflow", "prompt is too long")),
            Reply.of("SUMMARY"),
            Reply.of("recovered"),
        ],
    )
    await collect(rt, "one")
    records = await collect(rt, "two")
    assert records[-1].stop_reason == "completed" and records[-1].text == "recovered"
    assert any(isinstance(r, Compact) for r in records)
    assert provider.requests[3].messages[0].text == COMPACTION_PREFIX + "SUMMARY"


async def test_a_second_overflow_ends_with_context_window(tmp_path: Path) -> None:
    rt, _ = runtime(
        tmp_path,
        [
            Reply.of("a1"),
            Reply.of(Fail("context_overflow", "too long")),
            Reply.of("SUMMARY"),
            Reply.of(Fail("context_overflow", "still too long")),
        ],
    )
    await collect(rt, "one")
    records = await collect(rt, "two")
    assert records[-1].stop_reason == "context_window"


async def test_an_extension_cancels_compaction(tmp_path: Path) -> None:
    seen = []

    def cancel(g) -> None:  # type: ignore[no-untyped-def]
        g.on("session_before_compact", lambda e: seen.append((e.automatic, e.instruction)) or False)

    rt, provider = runtime(
        tmp_path, [Reply.of("a1"), Reply.of("b1")], extensions=[cancel], bundled=True
    )
    await collect(rt, "one")
    await collect(rt, "two")
    records = [r async for r in rt.run_command("compact", "keep it short")]
    assert seen == [(False, "keep it short")]
    assert not any(isinstance(r, Compact) for r in records)
    assert any(isinstance(r, Notify) and "cancelled by an extension" in r.message for r in records)
    assert len(provider.requests) == 2


async def test_an_extension_supplies_the_summary(tmp_path: Path) -> None:
    def supply(g) -> None:  # type: ignore[no-untyped-def]
        g.on("session_before_compact", lambda e: {"summary": "FROM THE EXTENSION"})

    rt, provider = runtime(tmp_path, [Reply.of("a1"), Reply.of("b1")], extensions=[supply])
    await collect(rt, "one")
    await collect(rt, "two")
    assert await rt.compact()
    assert len(provider.requests) == 2  # no summary request was made
    assert rt.messages[0].text == COMPACTION_PREFIX + "FROM THE EXTENSION"


async def test_navigating_back_to_a_compacted_away_entry(tmp_path: Path) -> None:
    rt, provider = runtime(
        tmp_path, [Reply.of("a1"), Reply.of("b1"), Reply.of("SUMMARY"), Reply.of("again")]
    )
    await collect(rt, "one")
    await collect(rt, "two")
    assert await rt.compact()
    session = rt.session
    first_answer = next(
        e for e in session.entries if isinstance(e, MessageEntry) and e.message.text == "a1"
    )
    await rt.navigate(first_answer.id)
    assert [m.text for m in conversation(rt.messages)] == ["one", "a1"]
    await collect(rt, "branch from here")
    sent = conversation(provider.requests[-1].messages)
    assert [m.text for m in sent] == ["one", "a1", "branch from here"]
    # the whole history is still in the file
    texts = [e.message.text for e in session.entries if isinstance(e, MessageEntry)]
    assert texts[:4] == ["one", "a1", "two", "b1"]


async def test_disabled_compaction_says_so_when_the_context_is_full(tmp_path: Path) -> None:
    settings = {"compaction": {"enabled": False, "reserve_tokens": 1000}}
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of(Call("echo", {"text": "x"}), usage=Usage(3100, 50)),
            Reply.of("done"),
            Reply.of(Fail("context_overflow", "too long")),
        ],
        settings=settings,
    )
    records = await collect(rt, "task")
    assert not any(isinstance(r, Compact) for r in records)
    assert any(isinstance(r, Notify) and "compaction is off" in r.message for r in records)
    overflow = await collect(rt, "more")
    assert overflow[-1].stop_reason == "context_window"
    assert len(provider.requests) == 3


async def test_usage_event_reports_context_tokens(tmp_path: Path) -> None:
    seen = []
    rt, _ = runtime(
        tmp_path,
        [Reply.of("hi", usage=Usage(120, 30, 100))],
        extensions=[lambda g: g.on("usage", lambda e: seen.append(e.to_dict()))],
    )
    await collect(rt, "x")
    assert seen == [
        {
            "type": "usage",
            "input": 120,
            "output": 30,
            "cached": 100,
            "cost": None,
            "context_tokens": 150,
        }
    ]


SMALL = Model("scripted", "small", "scripted", context_window=8192)


async def test_at_an_8k_window_the_defaults_compact_and_the_run_continues(tmp_path: Path) -> None:
    # no compaction settings: reserve and kept sizes scale to the window (2,048 each at 8k)
    rt, provider = runtime(
        tmp_path,
        [
            Reply.of("a1", usage=Usage(3700, 10)),
            Reply.of(Call("echo", {"text": "y" * 8000}, "c1"), usage=Usage(3800, 2000)),
            Reply.of("SUMMARY-1"),
            Reply.of("done"),
        ],
        settings={},
        model=SMALL,
    )
    await collect(rt, "read this: " + "word " * 2900)
    records = await collect(rt, "now echo it")
    compact = next(r for r in records if isinstance(r, Compact))
    assert (compact.automatic, compact.dropped, compact.kept) == (True, 3, 2)
    assert is_summary_request(provider.requests[2])
    assert not any(isinstance(r, Notify) for r in records)
    assert records[-1].stop_reason == "completed" and records[-1].text == "done"
    sent = provider.requests[3].messages
    assert sent[0].text == COMPACTION_PREFIX + "SUMMARY-1"
    assert is_context(sent[1])  # the date and the folder still hold
    assert isinstance(sent[2], AssistantMessage) and sent[2].tool_calls[0].call_id == "c1"


async def test_a_full_window_with_nothing_old_enough_says_nothing(tmp_path: Path) -> None:
    rt, provider = runtime(tmp_path, [Reply.of("ok")], settings={}, model=SMALL)
    records = await collect(rt, "word " * 7000)  # one prompt alone fills the window
    assert not any(isinstance(r, Notify) for r in records)
    assert len(provider.requests) == 1 and records[-1].text == "ok"


async def test_an_overflow_after_output_streamed_is_not_retried(tmp_path: Path) -> None:
    from auger.llm.scripted import Fail
    from auger.records import TextDelta

    rt, provider = runtime(
        tmp_path,
        [
            Reply.of("a1"),
            Reply.of("b1"),
            Reply.of("half an answer", Fail("context_overflow", "too long")),
            Reply.of("SUMMARY"),
            Reply.of("never"),
        ],
    )
    await collect(rt, "one")
    await collect(rt, "two")
    records = await collect(rt, "three")
    shown = "".join(r.content for r in records if isinstance(r, TextDelta))
    assert shown == "half an answer"  # nothing the consumer saw is shown again
    assert records[-1].stop_reason == "context_window"
    assert len(provider.requests) == 3


async def test_the_host_shows_compaction_while_the_summary_is_written(tmp_path: Path) -> None:
    from support.hosts import Watching

    host = Watching()
    rt, _ = runtime(
        tmp_path,
        [
            *(Reply.of("a1"), Reply.of("b1"), Reply.of("SUMMARY"), Reply.of("c1")),
            Reply.of(Fail("network", "gone")),
        ],
        host=host,
    )
    await collect(rt, "one")
    await collect(rt, "two")
    assert host.shown == []
    assert await rt.compact()
    assert host.shown == [
        ("start", "compacting the conversation"),
        ("end", "compacting the conversation", None),
    ]
    await collect(rt, "three")
    assert not await rt.compact()  # the summary request fails: the spinner still stops
    assert host.shown[2:] == [
        ("start", "compacting the conversation"),
        ("end", "compacting the conversation", "ProviderError"),
    ]
