"""One turn through the Runtime API and the scripted provider: SPEC §1.2, §3 and §4."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from auger.config.errors import ConfigError
from auger.llm.errors import RetryPolicy
from auger.llm.scripted import Call, Delay, Fail, Reply, ScriptedProvider, Text
from auger.llm.usage import Usage
from auger.records import AfterToolCall, BeforeToolCall, Notify, TurnEnd
from auger.tools.base import ToolError, tool
from support.context import contexts, conversation
from support.runtime import TickClock, collect, make_runtime, types


@tool
def echo(text: str) -> str:
    """Say it back."""
    return f"echo: {text}"


@tool
async def slow(seconds: float) -> str:
    """Sleep."""
    await asyncio.sleep(seconds)
    return "slept"


@tool
def missing(path: str) -> str:
    """Always fails."""
    raise ToolError("not_found", f"{path} does not exist")


def tools_extension(g) -> None:  # type: ignore[no-untyped-def]
    for t in (echo, slow, missing):
        g.tool(t)


async def test_plain_text_turn_opens_with_session_start_and_ends_with_turn_end(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider([Reply.of("Hello world")])
    rt = make_runtime(tmp_path, provider)
    records = await collect(rt, "hi")
    assert types(records) == [
        "session_start",
        "text_delta",
        "text_delta",
        "text_done",
        "token_usage_done",
        "finish_reason_done",
        "turn_end",
    ]
    end = records[-1]
    assert isinstance(end, TurnEnd)
    assert (end.stop_reason, end.text) == ("completed", "Hello world")


async def test_session_start_only_opens_the_first_prompt(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("a"), Reply.of("b")]))
    first = await collect(rt, "one")
    second = await collect(rt, "two")
    assert first[0].type == "session_start"
    assert second[0].type == "text_delta"


async def test_tool_calls_are_announced_then_run_one_at_a_time(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of(Call("echo", {"text": "a"}, "c1"), Call("nope", {"x": 1}, "c2")),
            Reply.of("done"),
        ]
    )
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension], clock=TickClock())
    records = await collect(rt, "go")
    calls = [
        (r.type, getattr(r, "call_id", None))
        for r in records
        if r.type in ("tool_call_done", "before_tool_call", "after_tool_call")
    ]
    assert calls == [
        ("tool_call_done", "c1"),
        ("tool_call_done", "c2"),
        ("before_tool_call", "c1"),
        ("after_tool_call", "c1"),
        ("before_tool_call", "c2"),
        ("after_tool_call", "c2"),
    ]
    after = [r for r in records if isinstance(r, AfterToolCall)]
    assert after[0].result.content == "echo: a" and not after[0].result.is_error
    assert after[1].result.error_type == "unknown_tool"
    assert after[1].duration == 0.0


async def test_at_and_duration_come_from_the_injected_clock(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": "a"}, "c1")), Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension], clock=TickClock(step=1.0))
    records = await collect(rt, "go")
    before = next(r for r in records if isinstance(r, BeforeToolCall))
    after = next(r for r in records if isinstance(r, AfterToolCall))
    # the clock is read: at before, tool start, tool end, at after
    assert after.duration == 1.0
    assert after.at - before.at == 3.0


async def test_arguments_that_are_not_an_object_get_a_validation_error(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("echo", "[1, 2]", "c1")), Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension])
    records = await collect(rt, "go")
    assert "before_tool_call" not in types(records)
    after = next(r for r in records if isinstance(r, AfterToolCall))
    assert after.args == {} and after.result.error_type == "validation_error"


async def test_a_tool_error_reaches_the_model(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("missing", {"path": "x"})), Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension])
    records = await collect(rt, "go")
    after = next(r for r in records if isinstance(r, AfterToolCall))
    assert after.result.error_type == "not_found"
    sent = provider.requests[1].messages[-1]
    assert sent.role == "tool" and sent.is_error and sent.text == "x does not exist"


async def test_schema_validation_fails_before_the_tool_runs(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("echo", {"wrong": 1})), Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension])
    records = await collect(rt, "go")
    after = next(r for r in records if isinstance(r, AfterToolCall))
    assert after.result.error_type == "validation_error"
    assert "text" in after.result.content


async def test_max_steps_stops_a_model_that_keeps_calling_tools(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("echo", {"text": str(i)})) for i in range(5)])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension], max_steps=2)
    records = await collect(rt, "loop")
    assert records[-1].stop_reason == "max_steps"
    assert len(provider.requests) == 2
    assert sum(isinstance(r, AfterToolCall) for r in records) == 2


async def test_usage_sums_over_the_turn_and_prices_it(tmp_path: Path) -> None:
    from auger.llm.provider import Model
    from auger.llm.usage import Pricing

    model = Model("scripted", "priced", "scripted", pricing=Pricing(1.0, 2.0))
    provider = ScriptedProvider(
        [
            Reply.of(Call("echo", {"text": "a"}), usage=Usage(1000, 10)),
            Reply.of("ok", usage=Usage(2000, 20)),
        ]
    )
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension], model=model)
    end = (await collect(rt, "go"))[-1]
    assert (end.usage.input_tokens, end.usage.output_tokens) == (3000, 30)
    assert end.cost is not None and abs(end.cost - (3000 * 1.0 + 30 * 2.0) / 1e6) < 1e-12
    assert end.to_dict()["usage"]["cost"] == end.cost


async def test_unpriced_model_leaves_cost_out(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("hi")]))
    end = (await collect(rt, "go"))[-1]
    assert end.cost is None and "cost" not in end.to_dict()["usage"]


async def test_retryable_failure_is_retried_then_succeeds(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Fail("rate_limit", "slow down", retry_after=0.01)), Reply.of("fine")]
    )
    rt = make_runtime(tmp_path, provider, retry=RetryPolicy(attempts=3, base_delay=0.01))
    records = await collect(rt, "go")
    assert records[-1].stop_reason == "completed" and records[-1].text == "fine"
    warnings = [r for r in records if isinstance(r, Notify)]
    assert len(warnings) == 1 and "retrying" in warnings[0].message
    assert len(provider.requests) == 2


async def test_retries_give_up_after_the_attempts(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Fail("server", "boom")) for _ in range(3)])
    rt = make_runtime(tmp_path, provider, retry=RetryPolicy(attempts=3, base_delay=0.001))
    end = (await collect(rt, "go"))[-1]
    assert end.stop_reason == "error"
    assert end.error == {"kind": "server", "message": "boom"}
    assert len(provider.requests) == 3


async def test_failure_after_output_is_not_retried(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Text("partial"), Fail("incomplete", "cut off"))])
    rt = make_runtime(tmp_path, provider, retry=RetryPolicy(attempts=3, base_delay=0.001))
    end = (await collect(rt, "go"))[-1]
    assert end.stop_reason == "error" and len(provider.requests) == 1


async def test_context_overflow_ends_with_context_window(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Fail("context_overflow", "prompt is too long"))])
    end = (await collect(make_runtime(tmp_path, provider), "go"))[-1]
    assert end.stop_reason == "context_window"


async def test_length_finish_stops_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("cut", finish="length")])
    end = (await collect(make_runtime(tmp_path, provider), "go"))[-1]
    assert end.stop_reason == "length"


async def test_cancel_mid_stream_ends_with_cancelled(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Text("first"), Delay(30), Text("never"))])
    rt = make_runtime(tmp_path, provider)
    records = []
    async for record in rt.prompt("go"):
        records.append(record)
        if record.type == "text_done":
            rt.cancel()
    assert records[-1].type == "turn_end" and records[-1].stop_reason == "cancelled"
    assert records[-1].text == "first"
    assert "never" not in [getattr(r, "content", None) for r in records]


async def test_cancel_during_a_tool_answers_every_call(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("slow", {"seconds": 30}, "c1"), Call("echo", {"text": "x"}, "c2"))]
    )
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension])
    records = []
    async for record in rt.prompt("go"):
        records.append(record)
        if record.type == "before_tool_call":
            rt.cancel()
    after = [r for r in records if isinstance(r, AfterToolCall)]
    assert [(a.call_id, a.result.error_type) for a in after] == [
        ("c1", "cancelled"),
        ("c2", "cancelled"),
    ]
    assert records[-1].stop_reason == "cancelled"
    # the conversation stays valid: every call has a result
    assert [m.role for m in conversation(rt.messages)] == ["user", "assistant", "tool", "tool"]


async def test_cancel_from_another_thread(tmp_path: Path) -> None:
    import threading

    provider = ScriptedProvider([Reply.of(Text("a"), Delay(30))])
    rt = make_runtime(tmp_path, provider)
    records = []
    async for record in rt.prompt("go"):
        records.append(record)
        if record.type == "text_done":
            threading.Thread(target=rt.cancel).start()
    assert records[-1].stop_reason == "cancelled"


async def test_the_conversation_carries_over_between_prompts(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two")])
    rt = make_runtime(tmp_path, provider)
    await collect(rt, "first")
    await collect(rt, "second")
    sent = conversation(provider.requests[1].messages)
    assert [(m.role, m.text) for m in sent] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ]


async def test_system_prompt_is_assembled_from_sections_every_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a"), Reply.of("b")])
    rt = make_runtime(tmp_path, provider, extensions=[tools_extension])
    await collect(rt, "x")
    first = provider.requests[0]
    assert [t.name for t in first.tools] == ["echo", "slow", "missing"]
    assert "No tools are available in this session." not in first.system
    rt.tools.clear()
    await collect(rt, "y")
    assert "No tools are available in this session." in provider.requests[1].system


async def test_the_date_and_cwd_reach_the_model_in_the_context_message(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a")])
    rt = make_runtime(tmp_path, provider)
    await collect(rt, "x")
    request = provider.requests[0]
    [context] = contexts(request.messages)
    assert f"The current working directory is {rt.cwd}." in context
    assert "Today's date is" in context
    assert str(rt.cwd) not in request.system and "Today's date" not in request.system
    assert [m.text for m in request.messages] == [context, "x"]


async def test_two_projects_differ_only_in_the_context_message(tmp_path: Path) -> None:
    requests = []
    for name in ("a", "b"):
        provider = ScriptedProvider([Reply.of("ok")])
        (tmp_path / name).mkdir()
        await collect(make_runtime(tmp_path / name, provider, extensions=[tools_extension]), "x")
        requests.append(provider.requests[0])
    a, b = requests
    assert a.system.encode() == b.system.encode()
    assert a.tools == b.tools and a.tools
    assert conversation(a.messages) == conversation(b.messages)
    [context_a], [context_b] = contexts(a.messages), contexts(b.messages)
    assert context_a != context_b


async def test_an_unchanged_context_is_not_sent_again(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two")])
    rt = make_runtime(tmp_path, provider)
    await collect(rt, "first")
    await collect(rt, "second")
    first, second = provider.requests
    assert second.messages[: len(first.messages)] == first.messages
    assert len(contexts(second.messages)) == 1
    assert [m.text for m in second.messages[len(first.messages) :]] == ["one", "second"]


async def test_notices_raised_while_idle_open_the_next_stream(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("a")]))
    rt.notify("heads up", "warning")
    records = await collect(rt, "go")
    assert types(records)[:2] == ["session_start", "notify"]


async def test_ask_returns_text_stop_reason_and_usage(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("the answer", usage=Usage(5, 2))]))
    answer = await rt.ask("q")
    assert (answer.text, answer.stop_reason) == ("the answer", "completed")
    assert (answer.usage.input_tokens, answer.usage.output_tokens) == (5, 2)


def test_synchronous_wrappers(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("sync"), Reply.of("again")]))
    records = list(rt.prompt_sync("go"))
    assert records[-1].text == "sync"
    assert rt.ask_sync("more").text == "again"
    rt.close_sync()


async def test_a_tools_allowlist_keeps_only_those_tools(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[tools_extension], tools=["echo"])
    assert list(rt.tools) == ["echo"]


def test_an_allowlist_naming_an_unknown_tool_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown tools: zzz \(the tools: echo, missing"):
        make_runtime(
            tmp_path, ScriptedProvider(), extensions=[tools_extension], tools=["echo", "zzz"]
        )
