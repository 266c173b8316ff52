"""Tool calls written as text: each format, invented names, near-JSON, and the stream rewrite."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from auger.llm.provider import ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.textcalls import TextCall, find_calls
from auger.llm.textstream import recover
from auger.llm.usage import Usage

TOOLS = {"read", "grep", "edit"}


def args(call: TextCall) -> dict[str, object]:
    return json.loads(call.arguments)


def test_a_hermes_tagged_call():
    text = '<tool_call>\n{"name": "read", "arguments": {"path": "README.md"}}\n</tool_call>'
    rest, calls = find_calls(text, TOOLS)
    assert rest == ""
    assert [(c.name, args(c)) for c in calls] == [("read", {"path": "README.md"})]


def test_two_tagged_calls_with_prose_around_them():
    text = (
        'Let me look.\n<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>'
        '\n<tool_call>{"name": "grep", "arguments": {"pattern": "x"}}</tool_call>'
    )
    rest, calls = find_calls(text, TOOLS)
    assert rest == "Let me look."
    assert [c.name for c in calls] == ["read", "grep"]


def test_an_unclosed_tag_at_the_end_is_a_call():
    rest, calls = find_calls('<tool_call>{"name": "read", "arguments": {"path": "a"}}', TOOLS)
    assert (rest, [c.name for c in calls]) == ("", ["read"])


def test_a_tagged_call_with_an_invented_name_is_still_a_call():
    # the dispatch answers it with unknown_tool, which lists the real tools
    _, calls = find_calls('<tool_call>{"name": "search_files", "arguments": {}}</tool_call>', TOOLS)
    assert [c.name for c in calls] == ["search_files"]


def test_a_fenced_json_call():
    text = 'I will search.\n```json\n{"name": "grep", "arguments": {"pattern": "def main"}}\n```'
    rest, calls = find_calls(text, TOOLS)
    assert rest == "I will search."
    assert [(c.name, args(c)) for c in calls] == [("grep", {"pattern": "def main"})]


def test_a_fenced_list_of_calls_and_llama_parameters():
    text = '```\n[{"name": "read", "parameters": {"path": "a"}}, {"name": "grep"}]\n```'
    _, calls = find_calls(text, TOOLS)
    assert [(c.name, args(c)) for c in calls] == [("read", {"path": "a"}), ("grep", {})]


def test_a_bare_json_reply_is_a_call():
    _, calls = find_calls('  {"name": "read", "arguments": {"path": "x"}}\n', TOOLS)
    assert [c.name for c in calls] == ["read"]


def test_fenced_json_with_an_invented_name_stays_text():
    text = '```json\n{"name": "search_files", "arguments": {"q": "x"}}\n```'
    assert find_calls(text, TOOLS) == (text, ())


def test_json_that_is_not_a_call_stays_text():
    for text in (
        '```json\n{"name": "read", "arguments": "not an object"}\n```',
        '```json\n{"title": "read", "version": 2}\n```',
        "Here is the answer: 42.",
        "```python\nprint('hi')\n```",
    ):
        assert find_calls(text, TOOLS) == (text, ()), text


def test_arguments_given_as_a_json_string():
    text = '<tool_call>{"name": "read", "arguments": "{\\"path\\": \\"a\\"}"}</tool_call>'
    _, calls = find_calls(text, TOOLS)
    assert args(calls[0]) == {"path": "a"}


def test_near_json_is_repaired():
    text = "<tool_call>{'name': 'edit', 'arguments': {'path': 'a.py', 'old': 'x',}}</tool_call>"
    _, calls = find_calls(text, TOOLS)
    assert [(c.name, args(c)) for c in calls] == [("edit", {"path": "a.py", "old": "x"})]


def test_a_missing_closing_brace_is_repaired():
    text = '```json\n{"name": "grep", "arguments": {"pattern": "foo"}\n```'
    _, calls = find_calls(text, TOOLS)
    assert [(c.name, args(c)) for c in calls] == [("grep", {"pattern": "foo"})]


SPECS = tuple(ToolSpec(n, "") for n in sorted(TOOLS))


async def _run(records: list[Record]) -> list[Record]:
    async def source() -> AsyncIterator[Record]:
        for r in records:
            yield r

    return [r async for r in recover(source(), SPECS)]


def _reply(text: str, finish: str = "stop") -> list[Record]:
    return [
        TextDelta(text),
        TextDone(text),
        TokenUsageDone(Usage(5, 7)),
        FinishReasonDone(finish, finish),
    ]


def _pieces(text: str, size: int = 3) -> list[TextDelta]:
    return [TextDelta(text[i : i + size]) for i in range(0, len(text), size)]


async def test_the_stream_reports_a_text_call_as_the_tool_call_it_is(check):
    text = 'Reading.\n<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>'
    out = await _run([*_pieces(text), *_reply(text)[1:]])
    check(out)
    calls = [r for r in out if isinstance(r, ToolCallDone)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("read", {"path": "a"})]
    assert out[-1] == FinishReasonDone("tool_calls", "stop")
    assert [r.content for r in out if isinstance(r, TextDone)] == ["Reading.\n"]
    assert "".join(r.content for r in out if isinstance(r, TextDelta)) == "Reading.\n"


async def test_a_whole_json_reply_streams_nothing_and_becomes_a_call(check):
    text = '{"name": "grep", "arguments": {"pattern": "x"}}'
    out = await _run([*_pieces(text), *_reply(text)[1:]])
    check(out)
    assert not any(isinstance(r, TextDelta | TextDone) for r in out)
    assert [r.name for r in out if isinstance(r, ToolCallDone)] == ["grep"]


async def test_plain_text_and_code_stream_live_and_pass_through(check):
    text = "Here:\n```python\nprint('hi')\n```\nDone <b>."
    out = await _run([*_pieces(text), *_reply(text)[1:]])
    check(out)
    assert [r.content for r in out if isinstance(r, TextDone)] == [text]
    assert out[-1] == FinishReasonDone("stop", "stop")
    # nothing waits for the end: the last delta carries only the tail
    assert len([r for r in out if isinstance(r, TextDelta)]) > 5


async def test_a_reply_cut_by_length_stays_text(check):
    text = '<tool_call>{"name": "read", "arguments": {"path": "a'
    out = await _run(_reply(text, "length"))
    check(out)
    assert [r.content for r in out if isinstance(r, TextDone)] == [text]
    assert not any(isinstance(r, ToolCallDone) for r in out)


async def test_native_calls_keep_the_text(check):
    text = '```json\n{"name": "read", "arguments": {}}\n```'
    records: list[Record] = [
        TextDelta(text),
        TextDone(text),
        ToolCallDelta("c1", "grep", '{"pattern": "a"}'),
        ToolCallDone("c1", "grep", '{"pattern": "a"}'),
        TokenUsageDone(Usage()),
        FinishReasonDone("tool_calls", "tool_calls"),
    ]
    assert await _run(records) == records


async def test_an_invented_name_in_a_tagged_call_gets_unknown_tool(tmp_path, wire):
    from auger.llm.openai_chat import OpenAIChatProvider
    from auger.records import AfterToolCall, TurnEnd
    from auger.tools.base import tool
    from support.runtime import collect, make_runtime
    from support.server import sse

    @tool
    def grep(pattern: str) -> str:
        """Search."""
        return pattern

    text = '<tool_call>{"name": "grep_files", "arguments": {"pattern": "x"}}</tool_call>'
    wire.chunks = [
        sse(
            {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
            done=True,
        )
    ]
    provider = wire.provider(OpenAIChatProvider, compat={"tool_call_fallback": True})
    rt = make_runtime(
        tmp_path, provider, extensions=[lambda g: g.tool(grep)], max_steps=1, tools=["grep"]
    )
    records = await collect(rt, "find x")
    after = next(r for r in records if isinstance(r, AfterToolCall))
    assert after.result.error_type == "unknown_tool"
    assert "Available tools: grep" in after.result.content
    assert "Did you mean 'grep'?" in after.result.content
    end = records[-1]
    assert isinstance(end, TurnEnd) and end.stop_reason == "max_steps"
