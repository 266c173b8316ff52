"""Every event of SPEC §2 through the Runtime API: real extension files, the scripted provider.

Each test writes an extension file whose handlers log what they saw (`record`, see
`support.extensions`) and return their effect; the test then checks both the log and the effect.
Not covered yet (not wired): `compact`, `session_before_compact`, `session_before_fork`,
`session_before_switch`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.commands import builtin
from auger.engine.registry import EVENT_NAMES
from auger.llm.errors import RetryPolicy
from auger.llm.provider import Model
from auger.llm.records import Record
from auger.llm.scripted import Call, Fail, Reasoning, Reply, ScriptedProvider
from auger.llm.usage import Pricing, Usage
from auger.records import AfterToolCall, BeforeToolCall, CommandOutput, Notify
from auger.runtime import Runtime
from auger.tools import bash
from support import chat
from support.context import conversation
from support.extensions import (
    SPEC_EVENTS,
    STREAM_RECORDS,
    TURN_WITH_ONE_TOOL_CALL,
    Extensions,
    runtime,
)
from support.runtime import TickClock, collect, types
from support.server import FakeServer
from support.server import Reply as HttpReply

PRICED = Model("scripted", "priced", "scripted", pricing=Pricing(1.0, 2.0))


@pytest.fixture
def exts(tmp_path: Path) -> Extensions:
    """Extension files under `tmp_path`, and the log their handlers write."""
    return Extensions.make(tmp_path)


async def submit(rt: Runtime, text: str) -> list[Record]:
    """Every record of `runtime.submit(text)`."""
    return [record async for record in rt.submit(text)]


def after_calls(records: list[Record]) -> list[tuple[str, str, str | None]]:
    """`(call_id, result content, error_type)` of every `after_tool_call`."""
    return [
        (r.call_id, r.result.content, r.result.error_type)
        for r in records
        if isinstance(r, AfterToolCall)
    ]


def notices(records: list[Record]) -> list[tuple[str, str]]:
    """`(level, message)` of every `notify` record."""
    return [(r.level, r.message) for r in records if isinstance(r, Notify)]


def test_the_registrar_takes_exactly_the_events_of_the_spec() -> None:
    assert set(SPEC_EVENTS) | set(STREAM_RECORDS) == EVENT_NAMES


# -- order (SPEC §4) ------------------------------------------------------------------------


async def test_order_of_a_turn_with_one_tool_call_idle_before_turn_end(
    tmp_path: Path, exts: Extensions, fake_server: FakeServer
) -> None:
    fake_server.queue(chat.tool_calls(("call_1", "echo", {"text": "hi"})), chat.text("Done."))
    rt = runtime(
        tmp_path,
        None,
        exts.recorder(),
        model=chat.MODEL,
        settings=chat.settings(fake_server),
        env=chat.KEY,
        idle_before_turn_end=True,
    )
    await collect(rt, "go")
    await rt.close()
    assert exts.types() == [
        *TURN_WITH_ONE_TOOL_CALL,
        "agent_end",
        "idle",
        "turn_end",
        "session_end",
        "session_shutdown",
    ]


# -- observe-only events: what the handler saw -------------------------------------------------


async def test_lifecycle_events_see_their_payloads(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "lifecycle",
        """
        def extension(g):
            for name in ["session_start", "turn_start", "before_agent_start", "agent_start",
                         "before_request", "agent_end", "idle", "session_end",
                         "session_shutdown"]:
                g.on(name, record)
            g.on("turn_end", lambda e: record(e, cost=e.cost))
        """,
    )
    provider = ScriptedProvider(
        [
            Reply.of(Call("echo", {"text": "hi"}), usage=Usage(100, 10)),
            Reply.of("All done.", usage=Usage(200, 20)),
        ]
    )
    rt = runtime(tmp_path, provider, ext, model=PRICED)
    records = await collect(rt, "say hi")
    await rt.close()
    root = str(rt.cwd)
    assert exts.one("session_start") == {
        "type": "session_start",
        "id": rt.session_id,
        "reason": "new",
        "root": root,
    }
    assert exts.one("turn_start") == {"type": "turn_start", "text": "say hi"}
    start = exts.one("before_agent_start")
    assert start == {
        "type": "before_agent_start",
        "prompt": "say hi",
        "system_prompt": provider.requests[0].system,
    }
    assert exts.one("agent_start") == {"type": "agent_start", "prompt": "say hi"}
    assert exts.one("before_request") == {
        "type": "before_request",
        "prompt": "say hi",
        "messages": 0,
    }
    assert exts.one("agent_end") == {"type": "agent_end", "text": "All done."}
    assert exts.one("idle") == {"type": "idle"}
    cost = PRICED.price(Usage(300, 30)).cost
    assert exts.one("turn_end") == records[-1].to_dict() | {"cost": cost}
    assert records[-1].to_dict()["usage"] == {
        "input_tokens": 300,
        "output_tokens": 30,
        "cost": cost,
    }
    assert exts.seen("session_end", "session_shutdown") == [
        {"type": "session_end", "reason": "close", "root": root},
        {"type": "session_shutdown", "root": root},
    ]


async def test_model_output_events_see_their_payloads(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "output",
        """
        def extension(g):
            for name in ["message", "reasoning", "usage", "error"]:
                g.on(name, record)
        """,
    )
    usage = Usage(100, 10, cache_read_tokens=40)
    provider = ScriptedProvider([Reply.of(Reasoning("Think first."), "The answer.", usage=usage)])
    rt = runtime(tmp_path, provider, ext, model=PRICED, clock=TickClock(step=0.5))
    await collect(rt, "q")
    assert exts.seen("message") == [
        {"type": "message", "kind": "reasoning", "text": "Think first."},
        {"type": "message", "kind": "text", "text": "The answer."},
    ]
    assert exts.one("reasoning") == {
        "type": "reasoning",
        "text": "Think first.",
        "elapsed_ms": 500.0,
    }
    assert exts.one("usage") == {
        "type": "usage",
        "input": 100,
        "output": 10,
        "cached": 40,
        "cost": PRICED.price(usage).cost,
        "context_tokens": 110,
    }
    assert exts.seen("error") == []


async def test_error_sees_a_provider_failure(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write("errors", 'def extension(g):\n    g.on("error", record)\n')
    provider = ScriptedProvider([Reply.of(Fail("bad_request", "the request was malformed"))])
    records = await collect(runtime(tmp_path, provider, ext), "q")
    assert exts.seen() == [{"type": "error", "message": "the request was malformed"}]
    assert records[-1].stop_reason == "error"


async def test_tool_events_see_the_call_and_its_result(tmp_path: Path, exts: Extensions) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("echo", {"text": "hi"}, "c1"), Call("nope", {}, "c2")), Reply.of("ok")]
    )
    rt = runtime(tmp_path, provider, exts.recorder(), clock=TickClock(step=0.25))
    records = await collect(rt, "go")
    echo = {"name": "echo", "input": {"text": "hi"}, "call_id": "c1"}
    assert exts.seen("tool_call")[0] == {"type": "tool_call", **echo}
    assert exts.seen("tool_start")[0] == {"type": "tool_start", **echo}
    ran, unknown = exts.seen("tool_end")
    assert ran == {
        "type": "tool_end",
        **echo,
        "ok": True,
        "result": "echo: hi",
        "detail": {"content": "echo: hi", "error_type": None, "is_error": False},
        "elapsed_ms": 250.0,
    }
    assert (unknown["call_id"], unknown["ok"], unknown["elapsed_ms"]) == ("c2", False, 0.0)
    assert unknown["result"].startswith("ERROR: unknown tool 'nope'")
    streamed = [r.to_dict() for r in records if isinstance(r, BeforeToolCall | AfterToolCall)]
    assert exts.seen("before_tool_call", "after_tool_call") == streamed


async def test_stream_records_reach_handlers_as_the_very_records_streamed(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "identity",
        f"""
        def extension(g):
            g.tool(echo)
            for name in {list(STREAM_RECORDS)!r}:
                g.on(name, lambda e: record(e, id=id(e)))
        """,
    )
    provider = ScriptedProvider(
        [Reply.of(Reasoning("Hmm."), Call("echo", {"text": "a"})), Reply.of("Done.")]
    )
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert [(s["type"], s["id"]) for s in exts.seen()] == [(r.type, id(r)) for r in records]
    assert {"reasoning_delta", "tool_call_delta", "before_tool_call", "turn_end"} <= set(
        types(records)
    )


async def test_notify_records_reach_notify_handlers(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "notices",
        """
        def extension(g):
            g.on("notify", record)
            g.on("turn_start", lambda e: g.notify("from turn_start", "warning"))
        """,
    )
    records = await collect(runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), ext), "go")
    streamed = [r.to_dict() for r in records if isinstance(r, Notify)]
    assert streamed == [{"type": "notify", "message": "from turn_start", "level": "warning"}]
    assert exts.seen() == streamed


async def test_turn_end_stays_last_when_its_handlers_raise_notices(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "late",
        """
        def extension(g):
            g.on("turn_end", lambda e: g.notify(f"turn_end: {e.text}"))
            g.on("idle", lambda e: g.notify("idle"))
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("a"), Reply.of("b")]), ext)
    first = await collect(rt, "one")
    second = await collect(rt, "two")
    assert types(first)[-1] == "turn_end" and types(second)[-1] == "turn_end"
    # streamed before turn_end, or opening the next stream: never lost
    assert {("info", "turn_end: a"), ("info", "idle")} <= set(notices(first + second))


async def test_a_value_returned_by_an_observer_is_ignored_with_a_warning(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "observer",
        """
        def loud(event):
            return "a different prompt"

        def extension(g):
            g.on("agent_start", loud)
        """,
    )
    provider = ScriptedProvider([Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "the prompt")
    assert conversation(provider.requests[0].messages)[0].text == "the prompt"
    assert notices(records) == [
        (
            "warning",
            "agent_start handler loud (observer) returned str 'a different prompt', but "
            "agent_start takes no value (it only observes); ignored",
        )
    ]


async def test_session_end_and_shutdown_are_awaited_by_close(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "goodbye",
        """
        import asyncio

        async def goodbye(event):
            await asyncio.sleep(0.05)
            record(event)

        def extension(g):
            g.on("session_end", goodbye)
            g.on("session_shutdown", goodbye)
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("hi")]), ext)
    await collect(rt, "hello")
    assert exts.seen() == []
    await rt.close()
    assert exts.types() == ["session_end", "session_shutdown"]


# -- events whose return value changes what happens -------------------------------------------


async def test_input_replacements_chain_and_reach_the_model(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "typed",
        """
        def extension(g):
            g.on("input", lambda e: record(e, by="first") or e.text + " (first)")
            g.on("input", lambda e: record(e, by="second") or e.text + " (second)")
        """,
    )
    provider = ScriptedProvider([Reply.of("ok")])
    await submit(runtime(tmp_path, provider, ext), "hi")
    assert [(s["by"], s["text"]) for s in exts.seen()] == [
        ("first", "hi"),
        ("second", "hi (first)"),
    ]
    assert conversation(provider.requests[0].messages)[0].text == "hi (first) (second)"


async def test_input_is_replaced_before_it_is_routed(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "shortcut",
        """
        async def hello(ctx):
            await ctx.say("hello from a command")

        def extension(g):
            g.command("hello", hello)
            g.on("input", lambda e: "/hello" if e.text == "hi there" else None)
        """,
    )
    provider = ScriptedProvider()
    records = await submit(runtime(tmp_path, provider, ext), "hi there")
    assert [r.text for r in records if isinstance(r, CommandOutput)] == ["hello from a command"]
    assert records[-1].type == "turn_end" and provider.requests == []


async def test_input_false_swallows_it_and_ends_the_chain(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "swallow",
        """
        def extension(g):
            g.on("input", lambda e: record(e, by="gate") or False)
            g.on("input", lambda e: record(e, by="later"))
        """,
    )
    provider = ScriptedProvider([Reply.of("never")])
    rt = runtime(tmp_path, provider, ext)
    await submit(rt, "delete everything")
    assert [s["by"] for s in exts.seen()] == ["gate"]
    assert provider.requests == [] and rt.messages == []


@pytest.mark.parametrize("typed", ["swallowed", "!echo hi"])
async def test_a_submit_that_runs_no_turn_still_ends_with_turn_end(
    tmp_path: Path, exts: Extensions, typed: str
) -> None:
    ext = exts.write(
        "swallow", 'def extension(g):\n    g.on("input", lambda e: e.text != "swallowed")\n'
    )
    records = await submit(runtime(tmp_path, ScriptedProvider(), ext), typed)
    assert records[-1].type == "turn_end" and records[-1].stop_reason == "completed"


async def test_user_bash_sees_the_command_and_its_output_is_kept(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write("shell", 'def extension(g):\n    g.on("user_bash", record)\n')
    provider = ScriptedProvider()
    rt = runtime(tmp_path, provider, ("bash", bash.extension), ext)
    records = await submit(rt, "!echo hello")
    assert exts.seen() == [{"type": "user_bash", "command": "echo hello"}]
    output = next(r for r in records if isinstance(r, CommandOutput))
    assert output.command == "!echo hello" and "hello" in output.text
    assert "hello" in rt.messages[-1].text and provider.requests == []


async def test_model_select_sees_the_model_chosen(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write("models", 'def extension(g):\n    g.on("model_select", record)\n')
    script = tmp_path / "script.json"
    script.write_text("[]")
    settings = {"providers": {"s": {"api": "scripted", "script": str(script)}}}
    rt = runtime(
        tmp_path, ScriptedProvider(), ("commands", builtin.extension), ext, settings=settings
    )
    await rt.set_model("s/first", variant="high")
    assert rt.model.id == "s/first"
    [r async for r in rt.run_command("model", "s/second")]
    assert exts.seen() == [
        {"type": "model_select", "model": "s/first", "variant": "high"},
        {"type": "model_select", "model": "s/second", "variant": None},
    ]


async def test_before_agent_start_replaces_the_prompt_then_the_system_prompt(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "shaping",
        """
        def extension(g):
            g.on("before_agent_start", lambda e: record(e, by="first") or "a rewritten prompt")
            g.on("before_agent_start",
                 lambda e: record(e, by="second") or {"system_prompt": "You are terse."})
            g.on("turn_start", record)
            g.on("agent_start", record)
        """,
    )
    provider = ScriptedProvider([Reply.of("ok")])
    await collect(runtime(tmp_path, provider, ext), "the typed prompt")
    first, second = exts.seen("before_agent_start")
    assert (first["prompt"], second["prompt"]) == ("the typed prompt", "a rewritten prompt")
    assert exts.one("turn_start")["text"] == "the typed prompt"
    assert exts.one("agent_start")["prompt"] == "a rewritten prompt"
    assert provider.requests[0].system == "You are terse."
    assert conversation(provider.requests[0].messages)[0].text == "a rewritten prompt"


async def test_before_agent_start_false_cancels_the_turn(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "cancel",
        """
        def extension(g):
            g.on("before_agent_start", lambda e: record(e) or False)
            g.on("before_agent_start", lambda e: record(e, by="later"))
            for name in ["agent_start", "before_request", "agent_end", "turn_end", "idle"]:
                g.on(name, record)
        """,
    )
    provider = ScriptedProvider([Reply.of("never")])
    rt = runtime(tmp_path, provider, ext)
    records = await collect(rt, "go")
    assert exts.types() == ["before_agent_start", "turn_end", "idle"]
    assert records[-1].stop_reason == "guardrail_blocked"
    assert notices(records) == [("warning", "an extension cancelled this turn")]
    assert provider.requests == [] and rt.messages == []


async def test_before_request_strings_are_appended_to_the_stored_message(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "append",
        """
        def extension(g):
            g.on("before_request", lambda e: record(e, by="first") or "Answer in French.")
            g.on("before_request", lambda e: record(e, by="second") or "Be brief.")
        """,
    )
    provider = ScriptedProvider([Reply.of("un"), Reply.of("deux")])
    rt = runtime(tmp_path, provider, ext)
    await collect(rt, "one")
    stored = len(rt.messages)
    await collect(rt, "two")
    assert [(s["by"], s["prompt"], s["messages"]) for s in exts.seen()] == [
        ("first", "one", 0),
        ("second", "one\n\nAnswer in French.", 0),
        ("first", "two", stored),
        ("second", "two\n\nAnswer in French.", stored),
    ]
    assert conversation(rt.messages)[0].text == "one\n\nAnswer in French.\n\nBe brief."
    assert conversation(provider.requests[0].messages)[0] == conversation(rt.messages)[0]


async def test_tool_call_dicts_replace_the_input_along_the_chain(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "louder",
        """
        def extension(g):
            g.tool(echo)
            g.on("tool_call", lambda e: record(e, by="first") or {"text": e.input["text"].upper()})
            g.on("tool_call", lambda e: record(e, by="second"))
        """,
    )
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": "quiet"}, "c1")), Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert [(s["by"], s["input"]) for s in exts.seen()] == [
        ("first", {"text": "quiet"}),
        ("second", {"text": "QUIET"}),
    ]
    before = next(r for r in records if isinstance(r, BeforeToolCall))
    assert before.args == {"text": "QUIET"}
    assert after_calls(records) == [("c1", "echo: QUIET", None)]


async def test_a_tool_call_handler_changing_the_input_in_place_changes_nothing(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "sneaky",
        """
        def extension(g):
            g.tool(echo)
            g.on("tool_call", lambda e: e.input.update(text="changed"))
        """,
    )
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": "quiet"}, "c1")), Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert after_calls(records) == [("c1", "echo: quiet", None)]


async def test_tool_call_string_blocks_the_call_and_the_turn_continues(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "deny",
        """
        def extension(g):
            g.tool(echo)
            g.on("tool_call", lambda e: record(e, by="guard") or "echo is not allowed here")
            g.on("tool_call", lambda e: record(e, by="later") or "a second reason")
        """,
    )
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": "a"}, "c1")), Reply.of("Sorry.")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert [s["by"] for s in exts.seen()] == ["guard"]
    assert "before_tool_call" not in types(records)
    assert after_calls(records) == [("c1", "ERROR: echo is not allowed here", "blocked")]
    after = next(r for r in records if isinstance(r, AfterToolCall))
    assert after.args == {"text": "a"} and after.duration == 0.0
    assert provider.requests[1].messages[-1].text == "ERROR: echo is not allowed here"
    assert (records[-1].stop_reason, records[-1].text) == ("completed", "Sorry.")


async def test_tool_call_false_blocks_that_tool_for_the_rest_of_the_turn(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "no_echo",
        """
        def shout(text: str) -> str:
            \"\"\"Say it loudly.\"\"\"
            return text.upper()

        def extension(g):
            g.tool(echo)
            g.tool(shout)
            g.on("tool_call", lambda e: record(e) or (False if e.name == "echo" else None))
        """,
    )
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("echo", {"text": "a"}, "c1"),
                Call("shout", {"text": "b"}, "c2"),
                Call("echo", {"text": "c"}, "c3"),
            ),
            Reply.of(Call("echo", {"text": "d"}, "c4")),
            Reply.of("Gave up."),
            Reply.of(Call("echo", {"text": "e"}, "c5")),
            Reply.of("Still no."),
        ]
    )
    rt = runtime(tmp_path, provider, ext)
    records = await collect(rt, "first turn")
    blocked = "ERROR: an extension blocked echo for this turn."
    assert after_calls(records) == [
        ("c1", blocked, "blocked"),
        ("c2", "B", None),
        ("c3", blocked, "blocked"),
        ("c4", blocked, "blocked"),
    ]
    assert [s["call_id"] for s in exts.seen()] == ["c1", "c2"]
    assert records[-1].stop_reason == "completed"
    await collect(rt, "next turn")
    assert [s["call_id"] for s in exts.seen()] == ["c1", "c2", "c5"]


async def test_a_raising_tool_call_handler_blocks_the_call(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "broken_guard",
        """
        def guard(event):
            record(event)
            raise RuntimeError("policy file is missing")

        def extension(g):
            g.tool(echo)
            g.on("tool_call", guard)
            g.on("tool_call", lambda e: record(e, by="later"))
        """,
    )
    provider = ScriptedProvider(
        [
            Reply.of(Call("echo", {"text": "a"}, "c1"), Call("echo", {"text": "b"}, "c2")),
            Reply.of("ok"),
        ]
    )
    records = await collect(runtime(tmp_path, provider, ext), "go")
    failed = "tool_call handler failed: policy file is missing"
    assert after_calls(records) == [
        ("c1", f"ERROR: {failed}", "blocked"),
        ("c2", f"ERROR: {failed}", "blocked"),
    ]
    assert [(s["call_id"], s.get("by")) for s in exts.seen()] == [("c1", None), ("c2", None)]
    assert notices(records) == [("error", failed), ("error", failed)]
    assert provider.requests[1].messages[-1].text == f"ERROR: {failed}"


async def test_tool_end_strings_replace_what_the_model_is_told(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "redact",
        """
        def extension(g):
            g.tool(echo)
            g.on("tool_end", lambda e: record(e, by="first") or e.result + " (checked)")
            g.on("tool_end", lambda e: record(e, by="second") or e.result.replace("echo", "ECHO"))
        """,
    )
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": "hi"}, "c1")), Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert [(s["by"], s["result"]) for s in exts.seen()] == [
        ("first", "echo: hi"),
        ("second", "echo: hi (checked)"),
    ]
    assert after_calls(records) == [("c1", "ECHO: hi (checked)", None)]
    assert provider.requests[1].messages[-1].text == "ECHO: hi (checked)"


async def test_context_replaces_what_one_call_sends_and_not_the_conversation(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "last_only",
        """
        def extension(g):
            g.on("context", lambda e: record(e, by="first") or e.messages[-1:])
            g.on("context", lambda e: record(e, by="second"))
        """,
    )
    provider = ScriptedProvider([Reply.of("a"), Reply.of("b")])
    rt = runtime(tmp_path, provider, ext)
    await collect(rt, "one")
    await collect(rt, "two")
    seen = [(s["by"], len(conversation(s["messages"])), s["step"]) for s in exts.seen()]
    assert seen == [
        ("first", 1, 1),
        ("second", 1, 1),
        ("first", 3, 1),
        ("second", 1, 1),
    ]
    assert [m.text for m in provider.requests[1].messages] == ["two"]
    assert [m.text for m in conversation(rt.messages)] == ["one", "a", "two", "b"]


async def test_context_handlers_get_a_copy(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "meddler", 'def extension(g):\n    g.on("context", lambda e: e.messages.clear())\n'
    )
    provider = ScriptedProvider([Reply.of("a"), Reply.of("b")])
    rt = runtime(tmp_path, provider, ext)
    await collect(rt, "one")
    await collect(rt, "two")
    assert [m.text for m in conversation(rt.messages)] == ["one", "a", "two", "b"]


async def test_context_fires_once_per_stream_attempt(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "steps",
        """
        def extension(g):
            g.tool(echo)
            g.on("context", lambda e: record(e, count=len(e.messages)))
        """,
    )
    provider = ScriptedProvider(
        [
            Reply.of(Call("echo", {"text": "a"})),
            Reply.of(Fail("overloaded", "busy")),
            Reply.of("done"),
        ]
    )
    rt = runtime(tmp_path, provider, ext, retry=RetryPolicy(attempts=2, base_delay=0.001))
    await collect(rt, "go")
    seen = exts.seen()
    assert [s["step"] for s in seen] == [1, 2, 3]
    assert [s["count"] for s in seen] == [len(r.messages) for r in provider.requests]
    assert seen[1]["count"] == seen[0]["count"] + 2  # the call and its result


async def test_before_provider_request_merges_headers_and_replaces_the_body(
    tmp_path: Path, exts: Extensions, fake_server: FakeServer
) -> None:
    ext = exts.write(
        "wire",
        """
        def tag(event):
            record(event, by="first")
            return {"headers": {"x-team": "tools"}}

        def trim(event):
            record(event, by="second")
            body = event.body | {"messages": event.body["messages"][-1:], "temperature": 0}
            return {"headers": {"x-trace": "t-1"}, "body": body}

        def extension(g):
            g.on("before_provider_request", tag)
            g.on("before_provider_request", trim)
            g.on("after_provider_response", record)
        """,
    )
    fake_server.queue(HttpReply(500, b'{"error": {"message": "internal"}}'), chat.text("ok"))
    rt = runtime(
        tmp_path,
        None,
        ext,
        model=chat.MODEL,
        settings=chat.settings(fake_server),
        env=chat.KEY,
    )
    records = await collect(rt, "hello")
    await rt.close()
    assert records[-1].stop_reason == "completed"
    url = f"{fake_server.url}/v1/chat/completions"
    first, second = exts.seen("before_provider_request")[:2]
    assert (first["url"], first["headers"]) == (url, {"authorization": "Bearer sk-local-test"})
    assert first["body"]["messages"][-1] == {"role": "user", "content": "hello"}
    assert second["headers"] == first["headers"] | {"x-team": "tools"}
    sent = fake_server.requests[-1]
    assert (sent.headers["x-team"], sent.headers["x-trace"]) == ("tools", "t-1")
    assert sent.headers["authorization"] == "Bearer sk-local-test"
    assert sent.body == first["body"] | {
        "messages": [{"role": "user", "content": "hello"}],
        "temperature": 0,
    }
    responses = exts.seen("after_provider_response")
    assert [(r["url"], r["status"]) for r in responses] == [(url, 500), (url, 200)]
    assert responses[1]["headers"]["content-type"] == "text/event-stream"


async def test_the_scripted_provider_fires_the_provider_request_events(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "wire",
        """
        def tag(event):
            record(event)
            return {"headers": {"x-team": "tools"}, "body": event.body | {"temperature": 0}}

        def extension(g):
            g.on("before_provider_request", tag)
            g.on("after_provider_response", record)
        """,
    )
    provider = ScriptedProvider(["hi"], name="offline")
    await collect(runtime(tmp_path, provider, ext), "hello")
    (seen,) = exts.seen("before_provider_request")
    assert (seen["url"], seen["headers"]) == ("scripted://offline", {})
    assert seen["body"]["messages"][-1]["content"][-1]["text"] == "hello"
    assert provider.sent == [({"x-team": "tools"}, seen["body"] | {"temperature": 0})]
    responses = exts.seen("after_provider_response")
    assert [(r["url"], r["status"]) for r in responses] == [("scripted://offline", 200)]


# -- the chain rule (SPEC §2.1) ---------------------------------------------------------------


async def test_handlers_run_in_load_order_then_registration_order(
    tmp_path: Path, exts: Extensions
) -> None:
    first = exts.write(
        "a",
        """
        import asyncio

        async def slow(event):
            await asyncio.sleep(0.01)
            record(event, by="a2")

        def extension(g):
            g.on("turn_start", lambda e: record(e, by="a1"))
            g.on("turn_start", slow)
        """,
    )
    second = exts.write(
        "b", 'def extension(g):\n    g.on("turn_start", lambda e: record(e, by="b1"))\n'
    )
    await collect(runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), first, second), "go")
    assert [s["by"] for s in exts.seen()] == ["a1", "a2", "b1"]


async def test_false_ends_the_chain_of_any_event(tmp_path: Path, exts: Extensions) -> None:
    first = exts.write(
        "a",
        """
        def extension(g):
            g.on("turn_start", lambda e: record(e, by="a1") or False)
            g.on("turn_start", lambda e: record(e, by="a2"))
        """,
    )
    second = exts.write(
        "b", 'def extension(g):\n    g.on("turn_start", lambda e: record(e, by="b1"))\n'
    )
    provider = ScriptedProvider([Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, first, second), "go")
    assert [s["by"] for s in exts.seen()] == ["a1"]
    assert (records[-1].stop_reason, records[-1].text) == ("completed", "ok")


async def test_a_raising_handler_is_reported_and_counts_as_none(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "flaky",
        """
        def broken(event):
            raise ValueError("no config")

        def extension(g):
            g.on("before_request", broken)
            g.on("before_request", lambda e: record(e) or "Be brief.")
        """,
    )
    provider = ScriptedProvider([Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert notices(records) == [("error", "before_request handler failed: no config")]
    assert exts.one("before_request")["prompt"] == "go"
    assert conversation(provider.requests[0].messages)[0].text == "go\n\nBe brief."


async def test_a_value_of_the_wrong_kind_is_ignored_with_a_warning(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "wrong",
        """
        def count(event):
            return 42

        def extension(g):
            g.on("before_request", count)
            g.on("before_request", record)
        """,
    )
    provider = ScriptedProvider([Reply.of("ok")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert notices(records) == [
        (
            "warning",
            "before_request handler count (wrong) returned int 42, but before_request takes "
            "a string (appended to the prompt); ignored",
        )
    ]
    assert exts.one("before_request")["prompt"] == "go"
    assert conversation(provider.requests[0].messages)[0].text == "go"


@pytest.mark.parametrize(
    ("event", "returned", "takes"),
    [
        ("context", "[1, 2, 3]", "a list of messages (UserMessage, AssistantMessage, "),
        ("before_agent_start", '{"prompt": 12345}', 'a dict with a string "prompt" or '),
        ("before_agent_start", '{"system_prompt": ["x"]}', 'a dict with a string "prompt" or '),
        ("tool_call", "{1: 'x'}", "a dict with string keys (the input)"),
    ],
)
async def test_a_value_of_the_right_kind_holding_the_wrong_types_is_ignored_naming_all(
    tmp_path: Path, exts: Extensions, event: str, returned: str, takes: str
) -> None:
    ext = exts.write(
        "sloppy",
        f"""
        def wrong(event):
            return {returned}

        def extension(g):
            g.on("{event}", wrong)
        """,
    )
    provider = ScriptedProvider([Reply.of("call", Call("ls", {})), Reply.of("done")])
    records = await collect(runtime(tmp_path, provider, ext), "go")
    assert records[-1].stop_reason == "completed"
    assert records[-1].text == "done"
    [(level, message)] = {n for n in notices(records)}
    assert level == "warning"
    assert message.startswith(f"{event} handler wrong (sloppy) returned ")
    assert f", but {event} takes " in message and takes in message
    assert message.endswith("; ignored")
    assert conversation(provider.requests[0].messages)[0].text == "go"


async def test_async_two_argument_handlers_receive_ctx(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "context_aware",
        """
        import asyncio

        async def where(event, ctx):
            await asyncio.sleep(0)
            record(event, session=ctx.session_id, model=ctx.model, cwd=str(ctx.cwd),
                   stored=len(ctx.messages))

        def extension(g):
            g.on("agent_end", where)
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), ext)
    await collect(rt, "go")
    seen = exts.one("agent_end")
    assert (seen["session"], seen["model"], seen["cwd"]) == (
        rt.session_id,
        rt.model.id,
        str(rt.cwd),
    )
    assert seen["stored"] == len(rt.messages) and conversation(rt.messages)[-1].text == "ok"
