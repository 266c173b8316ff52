"""The Chat Completions wire format, on chunks shaped like OpenAI's and its imitators'."""

from __future__ import annotations

from typing import Any

import pytest

from auger.llm.errors import ProviderError
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.openai_chat import OpenAIChatProvider, request_body
from auger.llm.provider import Model, Request, ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    ProviderNotice,
    ReasoningDelta,
    ReasoningDone,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.usage import Pricing, Usage
from support.server import sse

MODEL = Model("openai", "gpt-4o-mini", "chat-completions", pricing=Pricing(0.15, 0.6, 0.075))
HELLO = Request(MODEL, "", (UserMessage.of("Say hello"),))


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    """One `chat.completion.chunk` as OpenAI streams it (with `include_usage` on)."""
    return {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion.chunk",
        "created": 1741570283,
        "model": "gpt-4o-mini-2024-07-18",
        "service_tier": "default",
        "system_fingerprint": "fp_06737a9306",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }


def usage_chunk(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    """The last chunk before `[DONE]`: no choices, the usage of the whole response."""
    return {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion.chunk",
        "created": 1741570283,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_06737a9306",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
    }


def call_piece(index: int, arguments: str, call_id: str = "", name: str = "") -> dict[str, Any]:
    """One entry of `delta.tool_calls`: id, type and name come on a call's first piece only."""
    piece: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        piece["id"] = call_id
        piece["type"] = "function"
        piece["function"]["name"] = name
    return piece


def priced(input_tokens: int, output_tokens: int, cached: int | None = 0) -> TokenUsageDone:
    """The usage record MODEL yields for these counts."""
    return TokenUsageDone(MODEL.price(Usage(input_tokens, output_tokens, cached)))


TEXT = sse(
    chunk({"role": "assistant", "content": "", "refusal": None}),
    chunk({"content": "Hello"}),
    chunk({"content": "! How can I help? 👋"}),
    chunk(finish="stop"),
    usage_chunk(9, 12),
    done=True,
)


async def test_text(wire, check):
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, TEXT)
    check(records)
    assert records == [
        TextDelta("Hello"),
        TextDelta("! How can I help? 👋"),
        TextDone("Hello! How can I help? 👋"),
        priced(9, 12),
        FinishReasonDone("stop", "stop"),
    ]


async def test_text_split_at_every_offset(wire):
    provider = wire.provider(OpenAIChatProvider)
    whole = await wire.run(provider, HELLO, TEXT)
    for cut in range(1, len(TEXT)):
        assert await wire.replay(provider, HELLO, TEXT, [cut]) == whole, f"split at {cut}"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_then_text(field: str, wire, check):
    body = sse(
        chunk({"role": "assistant", "content": None, field: ""}),
        chunk({"content": None, field: "The user "}),
        chunk({"content": None, field: "greets me."}),
        chunk({"content": "Hi!", field: None}),
        chunk(finish="stop"),
        usage_chunk(10, 30, cached=0),
        done=True,
    )
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    check(records)
    assert records == [
        ReasoningDelta("The user "),
        ReasoningDelta("greets me."),
        ReasoningDone("The user greets me."),
        TextDelta("Hi!"),
        TextDone("Hi!"),
        priced(10, 30),
        FinishReasonDone("stop", "stop"),
    ]


async def test_text_then_two_parallel_tool_calls_interleaved(wire, check):
    body = sse(
        chunk({"role": "assistant", "content": "Looking.", "refusal": None}),
        chunk({"tool_calls": [call_piece(0, "", "call_DdmO9pD3xa9XTPNJ32zg2hcA", "read")]}),
        chunk({"tool_calls": [call_piece(1, "", "call_Kx1CwZqPzYb0FJ9mN3r5T7vQ", "grep")]}),
        chunk({"tool_calls": [call_piece(0, '{"path"')]}),
        chunk({"tool_calls": [call_piece(1, '{"pattern": "TODO"}')]}),
        chunk({"tool_calls": [call_piece(0, ': "a.py"}')]}),
        chunk(finish="tool_calls"),
        usage_chunk(2000, 60, cached=1536),
        done=True,
    )
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    check(records)
    a, b = "call_DdmO9pD3xa9XTPNJ32zg2hcA", "call_Kx1CwZqPzYb0FJ9mN3r5T7vQ"
    assert records == [
        TextDelta("Looking."),
        TextDone("Looking."),
        ToolCallDelta(a, "read", '{"path"'),
        ToolCallDelta(b, "grep", '{"pattern": "TODO"}'),
        ToolCallDelta(a, None, ': "a.py"}'),
        ToolCallDone(a, "read", '{"path": "a.py"}'),
        ToolCallDone(b, "grep", '{"pattern": "TODO"}'),
        priced(2000, 60, cached=1536),
        FinishReasonDone("tool_calls", "tool_calls"),
    ]
    assert records[-2].usage.cost == pytest.approx((464 * 0.15 + 60 * 0.6 + 1536 * 0.075) / 1e6)


async def test_whole_calls_without_index_and_a_stop_reason(wire, check):
    # some servers send each call whole, without an index, and finish with "stop"
    body = sse(
        chunk({"tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"id": "c2", "function": {"name": "pwd", "arguments": ""}}]}),
        chunk(finish="stop"),
        done=True,
    )
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    check(records)
    assert records == [
        ToolCallDelta("c1", "ls", "{}"),
        ToolCallDone("c1", "ls", "{}"),
        ToolCallDone("c2", "pwd", "{}"),
        priced(0, 0, cached=None),
        FinishReasonDone("tool_calls", "stop"),
    ]


@pytest.mark.parametrize(
    ("raw", "finish"),
    [
        ("length", "length"),
        ("content_filter", "content_filter"),
        ("function_call", "tool_calls"),
        ("eos", "other"),
    ],
)
async def test_finish_reasons(raw: str, finish: str, wire):
    body = sse(chunk({"content": "x"}), chunk(finish=raw), done=True)
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    assert records[-1] == FinishReasonDone(finish, raw)


async def test_a_clean_end_after_finish_reason_and_usage_is_accepted(wire, check):
    body = sse(chunk({"content": "Hi"}), chunk(finish="stop"), usage_chunk(3, 1))
    records = await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    check(records)
    assert records[-2:] == [priced(3, 1), FinishReasonDone("stop", "stop")]


async def test_a_stream_cut_before_the_usage_is_incomplete(wire):
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIChatProvider), HELLO, TEXT[: TEXT.index(b"[DONE]") - 60])
    assert caught.value.kind == "incomplete"
    assert wire.records[-1] == TextDone("Hello! How can I help? 👋")


async def test_a_stream_cut_before_its_end_is_incomplete(wire):
    body = sse(chunk({"content": "Hel"}), chunk({"tool_calls": [call_piece(0, "{", "c1", "ls")]}))
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    assert caught.value.kind == "incomplete"
    assert wire.records == [TextDelta("Hel"), TextDone("Hel"), ToolCallDelta("c1", "ls", "{")]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"message": "Provider returned error", "code": 502}, "server"),
        ({"message": "Rate limit exceeded: free-models-per-min", "code": 429}, "rate_limit"),
        (
            {
                "message": "This model's maximum context length is 8192 tokens.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            },
            "context_overflow",
        ),
        (
            {"object": "error", "message": "bad", "type": "BadRequestError", "code": 400},
            "bad_request",
        ),
    ],
)
async def test_error_chunk_mid_stream(error: dict[str, Any], kind: str, wire):
    body = sse(chunk({"content": "Hi"}), {**chunk(finish="error"), "error": error})
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIChatProvider), HELLO, body)
    assert caught.value.kind == kind
    assert error["message"] in caught.value.message
    assert wire.records == [TextDelta("Hi")]


async def test_unreadable_chunk_is_a_bad_response(wire):
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIChatProvider), HELLO, b"data: {not json\n\n")
    assert caught.value.kind == "bad_response"


# --- request bodies -----------------------------------------------------------------------------


def test_body():
    request = Request(
        Model("ollama", "qwen3:8b", "chat-completions"),
        "You are terse.",
        (
            UserMessage.of("list files"),
            AssistantMessage(
                (
                    ReasoningPart("thinking"),
                    TextPart("Sure."),
                    ToolCall("c1", "ls", '{"path": "."}'),
                    ToolCall("c2", "shot", "{}"),
                ),
                api="chat-completions",
            ),
            ToolResultMessage("c1", "ls", (TextPart("a.py\nb.py"),)),
            ToolResultMessage("c2", "shot", (TextPart("taken"), ImagePart("image/png", "AAAA"))),
            UserMessage((TextPart("and this?"), ImagePart("image/jpeg", "BBBB"))),
            AssistantMessage((), api="chat-completions"),
        ),
        (
            ToolSpec(
                "ls", "List files", {"type": "object", "properties": {"path": {"type": "string"}}}
            ),
        ),
        max_tokens=2048,
        reasoning="low",
    )
    body = request_body(request)
    assert body["model"] == "qwen3:8b"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 2048
    assert body["reasoning_effort"] == "low"
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "ls",
                "description": "List files",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    png = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    jpeg = {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,BBBB"}}
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": "Sure.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "ls", "arguments": '{"path": "."}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "shot", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.py\nb.py"},
        {"role": "tool", "tool_call_id": "c2", "content": "taken"},
        {"role": "user", "content": [png]},
        {"role": "user", "content": [{"type": "text", "text": "and this?"}, jpeg]},
    ]


def test_body_without_extras():
    body = request_body(Request(MODEL, "", (AssistantMessage((ToolCall("c", "ls", "{}"),)),)))
    assert body["messages"] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        }
    ]
    assert "tools" not in body and "reasoning_effort" not in body
    assert body["max_tokens"] == MODEL.max_output


@pytest.mark.parametrize(("api_key", "auth"), [("sk-or", "Bearer sk-or"), (None, None)])
async def test_url_and_auth(api_key: str | None, auth: str | None, wire):
    provider = wire.provider(
        OpenAIChatProvider, base_url="http://localhost:11434/v1", api_key=api_key
    )
    await wire.run(provider, HELLO, TEXT)
    sent = wire.sent[-1]
    assert str(sent.url) == "http://localhost:11434/v1/chat/completions"
    assert sent.headers.get("authorization") == auth
    assert wire.body == request_body(HELLO)


TOOLS_REQUEST = Request(
    MODEL, "", (UserMessage.of("Read a"),), tools=(ToolSpec("read", "Read a file"),)
)
TEXT_CALL = sse(
    chunk({"role": "assistant", "content": '<tool_call>{"name": "read", '}),
    chunk({"content": '"arguments": {"path": "a"}}</tool_call>'}),
    chunk(finish="stop"),
    usage_chunk(9, 12),
)


async def test_tool_call_fallback_turns_a_text_call_into_a_call(wire, check):
    provider = wire.provider(OpenAIChatProvider, compat={"tool_call_fallback": True})
    records = await wire.run(provider, TOOLS_REQUEST, TEXT_CALL)
    check(records)
    done = [r for r in records if isinstance(r, ToolCallDone)]
    assert [(r.name, r.arguments) for r in done] == [("read", '{"path": "a"}')]
    assert records[-1] == FinishReasonDone("tool_calls", "stop")


async def test_without_tool_call_fallback_a_text_call_turns_it_on_once(wire):
    provider = wire.provider(OpenAIChatProvider)
    first = await wire.run(provider, TOOLS_REQUEST, TEXT_CALL)
    # streamed as it came, then found whole: a call, and one notice that the fallback is on
    assert "".join(r.content for r in first if isinstance(r, TextDelta)).startswith("<tool_call>")
    assert [r.name for r in first if isinstance(r, ToolCallDone)] == ["read"]
    assert sum(isinstance(r, ProviderNotice) for r in first) == 1
    second = await wire.run(provider, TOOLS_REQUEST, TEXT_CALL)
    assert not any(isinstance(r, TextDelta | ProviderNotice) for r in second)  # held: a call
    assert [r.name for r in second if isinstance(r, ToolCallDone)] == ["read"]
