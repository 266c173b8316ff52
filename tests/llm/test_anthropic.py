"""The Anthropic Messages wire format: recordings, request bodies, and cases no recording has."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from auger.llm.anthropic import AnthropicProvider
from auger.llm.anthropic_body import request_body
from auger.llm.catalog import lookup
from auger.llm.errors import ProviderError
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ProviderData,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.provider import Request, ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    ProviderDataDone,
    ReasoningDelta,
    ReasoningDone,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.usage import Usage
from support.server import sse

MODEL = lookup("anthropic", "claude-haiku-4-5-20251001", "messages")  # $1 in, $5 out per M
HELLO = Request(MODEL, "", (UserMessage.of("Say hello"),), max_tokens=4096)
WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city",
    {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city name"}},
        "required": ["city"],
        "additionalProperties": False,
    },
)


def priced(
    input_tokens: int,
    output_tokens: int,
    read: int | None = 0,
    write: int | None = 0,
    hour: int | None = 0,
):
    """The usage record the haiku model yields for these counts (the recordings' usage says
    how many of the writes were 1-hour ones: none)."""
    return TokenUsageDone(
        MODEL.price(Usage(input_tokens, output_tokens, read, write, cache_write_1h_tokens=hour))
    )


# --- recorded streams -------------------------------------------------------------------------


async def test_every_recording_parses_the_same_however_it_is_split(
    anthropic_sse: Path, wire, check
):
    body = anthropic_sse.read_bytes()
    provider = wire.provider(AnthropicProvider)
    whole = await wire.run(provider, HELLO, body)
    check(whole)
    cuts = sorted(random.Random(anthropic_sse.name).sample(range(1, len(body)), 20))
    assert await wire.replay(provider, HELLO, body, cuts) == whole
    one_byte_chunks = [body[i : i + 1] for i in range(len(body))]
    assert await wire.run(provider, HELLO, one_byte_chunks) == whole


async def test_a_small_recording_split_at_every_offset(recorded, wire):
    path = recorded(
        "anthropic", "stream_text__when_prompt_is_provided__yields_TextDelta_events.sse"
    )
    body = path.read_bytes()
    provider = wire.provider(AnthropicProvider)
    whole = await wire.run(provider, HELLO, body)
    for cut in range(1, len(body)):
        assert await wire.replay(provider, HELLO, body, [cut]) == whole, f"split at {cut}"


async def test_recorded_text(recorded, wire):
    path = recorded(
        "anthropic", "stream_text__when_prompt_is_provided__yields_TextDelta_events.sse"
    )
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, path.read_bytes())
    assert records == [
        TextDelta("Hello! "),
        TextDelta("👋 How can I help you today"),
        TextDelta("?"),
        TextDone("Hello! 👋 How can I help you today?"),
        priced(9, 16),
        FinishReasonDone("stop", "end_turn"),
    ]
    assert records[-2].usage.cost == pytest.approx((9 * 1.0 + 16 * 5.0) / 1e6)


async def test_recorded_tool_call(recorded, wire):
    path = recorded("anthropic", "tool_calling___stream_text__tool_call_done_has_arguments.sse")
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, path.read_bytes())
    call_id = "toolu_01Xj1CkSjfUCsYaA7rzxg5gF"
    assert records == [
        ToolCallDelta(call_id, "get_weather", '{"city'),
        ToolCallDelta(call_id, None, '": '),
        ToolCallDelta(call_id, None, '"Toron'),
        ToolCallDelta(call_id, None, 'to"}'),
        ToolCallDone(call_id, "get_weather", '{"city": "Toronto"}'),
        priced(580, 54),
        FinishReasonDone("tool_calls", "tool_use"),
    ]


async def test_recorded_thinking(recorded, wire):
    path = recorded("anthropic", "reasoning___stream_text__yields_reasoning_delta.sse")
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, path.read_bytes())
    assert records[0] == ReasoningDelta("This")
    at = next(i for i, r in enumerate(records) if isinstance(r, ReasoningDone))
    assert all(isinstance(r, ReasoningDelta) for r in records[:at])
    thinking = records[at]
    assert isinstance(thinking, ReasoningDone)
    assert thinking.content.startswith("This is a straightforward arithmetic question.")
    assert thinking.content.endswith("Or more directly: 2 + 2 = 4\n\nThe answer is 4.")
    kept = records[at + 1]
    assert isinstance(kept, ProviderDataDone) and kept.part.kind == "thinking_signature"
    signature = kept.part.data["signature"]
    assert signature.startswith("EowDCkYICxgCKkCkXtcvt91du")
    assert signature.endswith("KDg0o5wGAE=")
    assert kept.part.prefix is not None  # bound to the request it answered
    assert records[-3:] == [
        TextDone(
            "# 2 + 2\n\n**Step by step:**\n\n1. Start with the first number: **2**\n"
            "2. Add the second number: **+ 2**\n3. Combine them: 2 + 2 = **4**\n\n"
            "The answer is **4**."
        ),
        priced(48, 167),
        FinishReasonDone("stop", "end_turn"),
    ]


# --- request bodies -----------------------------------------------------------------------------


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with string content as one text block and cache_control left out."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
        out.append({"role": message["role"], "content": blocks})
    return out


TOOL_CALL = ToolCall("toolu_123", "get_weather", '{"city":"Toronto"}')
RECORDED_REQUESTS = {
    "generate_text__when_prompt_is_provided__returns_an_Assistant_message": Request(
        MODEL, "", (UserMessage.of("Say hello"),), max_tokens=4096
    ),
    "generate_text__when_system_and_prompt_are_provided__returns_an_Assistant_message": Request(
        MODEL, "Be concise", (UserMessage.of("Say hello"),), max_tokens=4096
    ),
    "generate_text__with_an_Assistant_message__returns_an_Assistant_message": Request(
        MODEL,
        "",
        (
            UserMessage.of("Say hello"),
            AssistantMessage((TextPart("Hello!"),), api="messages"),
            UserMessage.of("How are you?"),
        ),
        max_tokens=4096,
    ),
    "reasoning___stream_text__yields_reasoning_delta": Request(
        MODEL,
        "",
        (UserMessage.of("What is 2+2? Think step by step."),),
        max_tokens=16000,
        reasoning="medium",
    ),
    "tool_calling___stream_text__yields_tool_call_delta": Request(
        MODEL,
        "",
        (UserMessage.of("What is the weather in Toronto?"),),
        (WEATHER,),
        max_tokens=4096,
    ),
    "tool_calling___generate_text__with_tool_message": Request(
        MODEL,
        "",
        (
            UserMessage.of("What is the weather in Toronto?"),
            AssistantMessage((TOOL_CALL,), api="messages"),
            ToolResultMessage(
                "toolu_123",
                "get_weather",
                (TextPart("The weather in Toronto is 15 degrees Celsius."),),
            ),
        ),
        (WEATHER,),
        max_tokens=4096,
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED_REQUESTS))
def test_body_matches_the_recorded_request(name: str, recorded):
    expected = json.loads(recorded("anthropic", f"{name}.request.json").read_text())
    assert expected["path"] == "/v1/messages"
    want = expected["body"]
    body = request_body(RECORDED_REQUESTS[name])
    assert body["model"] == want["model"]
    assert body["max_tokens"] == want["max_tokens"]
    assert body["stream"] is True
    assert _plain(body["messages"]) == _plain(want["messages"])
    assert body.get("tools") == want.get("tools")
    assert body.get("thinking") == want.get("thinking")
    if "system" in want:
        assert [{"type": b["type"], "text": b["text"]} for b in body["system"]] == want["system"]
    else:
        assert "system" not in body


def test_prompt_caching_marks_the_system_prompt_and_the_last_two_user_turns():
    # https://platform.claude.com/docs/en/build-with-claude/prompt-caching: four breakpoints,
    # a hit looked for at most 20 blocks back, `ttl` "5m" (the default, sent bare) or "1h"
    request = Request(
        MODEL,
        "You are terse.",
        (
            UserMessage.of("first"),
            AssistantMessage((TOOL_CALL,), api="messages"),
            ToolResultMessage("toolu_123", "get_weather", (TextPart("15C"),)),
            AssistantMessage((TextPart("It is 15C."),), api="messages"),
            UserMessage.of("and tomorrow?"),
        ),
    )
    for ttl, mark in (("5m", {"type": "ephemeral"}), ("1h", {"type": "ephemeral", "ttl": "1h"})):
        body = request_body(request, ttl=ttl)
        assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": mark}]
        first, _, results, _, last = body["messages"]
        assert "cache_control" not in first["content"][-1]
        assert results["content"][-1]["cache_control"] == mark  # where the last request ended
        assert last["content"][-1]["cache_control"] == mark
        marks = json.dumps(body).count('"cache_control"')
        assert marks == 3  # of the four allowed
    assert body["max_tokens"] == MODEL.max_output


def test_tool_results_merge_into_one_user_turn_and_keep_errors_and_images():
    calls = (ToolCall("a", "read", "{}"), ToolCall("b", "shot", "not json"))
    request = Request(
        MODEL,
        "",
        (
            UserMessage((TextPart("look"), ImagePart("image/png", "AAAA"))),
            AssistantMessage(calls, api="messages"),
            ToolResultMessage("a", "read", (TextPart("no such file"),), is_error=True),
            ToolResultMessage("b", "shot", (TextPart("here"), ImagePart("image/jpeg", "BBBB"))),
        ),
    )
    user, assistant, results = request_body(request)["messages"]
    assert user["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
        "cache_control": {"type": "ephemeral"},
    }
    assert assistant["content"] == [
        {"type": "tool_use", "id": "a", "name": "read", "input": {}},
        {"type": "tool_use", "id": "b", "name": "shot", "input": {}},
    ]
    assert results["role"] == "user"
    first, second = results["content"]
    assert first == {
        "type": "tool_result",
        "tool_use_id": "a",
        "content": "no such file",
        "is_error": True,
    }
    assert second["tool_use_id"] == "b"
    assert second["content"] == [
        {"type": "text", "text": "here"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "BBBB"}},
    ]
    assert second["cache_control"] == {"type": "ephemeral"}


def test_thinking_goes_back_only_to_the_messages_api_with_a_signature():
    signed = ProviderData("thinking_signature", {"signature": "sig"})
    parts = (ReasoningPart("hmm"), signed, ReasoningPart("unsigned"), TextPart("4"))
    ours = request_body(Request(MODEL, "", (AssistantMessage(parts, api="messages"),)))
    theirs = request_body(Request(MODEL, "", (AssistantMessage(parts, api="responses"),)))
    assert ours["messages"][0]["content"] == [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "text", "text": "4"},
    ]
    assert theirs["messages"][0]["content"] == [{"type": "text", "text": "4"}]


@pytest.mark.parametrize(
    ("effort", "max_tokens", "budget", "sent_max"),
    [
        ("low", 16000, 4096, 16000),
        ("medium", None, 10_000, 64000),
        ("high", 64000, 32000, 64000),
        ("high", 8000, 6976, 8000),
        ("medium", 1500, 1024, 2048),
    ],
)
def test_thinking_budget_leaves_room_for_the_answer(effort, max_tokens, budget, sent_max):
    body = request_body(
        Request(MODEL, "", (UserMessage.of("q"),), max_tokens=max_tokens, reasoning=effort)
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == sent_max
    assert body["max_tokens"] > budget


# --- cases the recordings lack ----------------------------------------------------------------


def _start(input_tokens: int = 10, read: int = 0, write: int = 0) -> tuple[str, dict[str, Any]]:
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": 1,
    }
    return "message_start", {"type": "message_start", "message": {"id": "msg_1", "usage": usage}}


def _block(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_start", {
        "type": "content_block_start",
        "index": index,
        "content_block": block,
    }


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _stop(index: int) -> tuple[str, dict[str, Any]]:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


def _end(reason: str, output_tokens: int = 20) -> list[tuple[str, dict[str, Any]]]:
    return [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def _tool(index: int, call_id: str, name: str) -> tuple[str, dict[str, Any]]:
    return _block(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}})


def _json(index: int, piece: str) -> tuple[str, dict[str, Any]]:
    return _delta(index, {"type": "input_json_delta", "partial_json": piece})


async def test_text_then_two_tool_calls_with_cache_usage(wire, check):
    body = sse(
        _start(input_tokens=12, read=3000, write=500),
        _block(0, {"type": "text", "text": ""}),
        _delta(0, {"type": "text_delta", "text": "Let me look."}),
        _stop(0),
        _tool(1, "toolu_a", "read"),
        _json(1, ""),
        _json(1, '{"path": "a.py"}'),
        _stop(1),
        _tool(2, "toolu_b", "ls"),
        _stop(2),
        *_end("tool_use", output_tokens=40),
    )
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, body)
    check(records)
    assert records == [
        TextDelta("Let me look."),
        TextDone("Let me look."),
        ToolCallDelta("toolu_a", "read", '{"path": "a.py"}'),
        ToolCallDone("toolu_a", "read", '{"path": "a.py"}'),
        ToolCallDone("toolu_b", "ls", "{}"),
        priced(3512, 40, read=3000, write=500, hour=None),
        FinishReasonDone("tool_calls", "tool_use"),
    ]
    cost = (12 * 1.0 + 40 * 5.0 + 3000 * 0.1 + 500 * 1.25) / 1e6
    assert records[-2].usage.cost == pytest.approx(cost)


async def test_unsigned_thinking_is_not_sealed(wire, check):
    body = sse(
        _start(),
        _block(0, {"type": "redacted_thinking", "data": "opaque"}),
        _stop(0),
        _block(
            0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ),
        _json(0, '{"query": "x"}'),
        _stop(0),
        _block(1, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(1, {"type": "thinking_delta", "thinking": "hm"}),
        _stop(1),
        *_end("end_turn"),
    )
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, body)
    check(records)
    kept = [r.part.kind for r in records if isinstance(r, ProviderDataDone)]
    assert kept == ["redacted_thinking", "server_block"]  # and no signature for the thinking
    assert [r.content for r in records if isinstance(r, ReasoningDone)] == ["hm"]
    assert records[-4:-2] == [ReasoningDelta("hm"), ReasoningDone("hm")]


@pytest.mark.parametrize(
    ("raw", "finish"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("model_context_window_exceeded", "context_window"),
    ],
)
async def test_stop_reasons(raw: str, finish: str, wire):
    records = await wire.run(wire.provider(AnthropicProvider), HELLO, sse(_start(), *_end(raw)))
    assert records[-1] == FinishReasonDone(finish, raw)


@pytest.mark.parametrize(
    ("error_type", "message", "kind"),
    [
        ("overloaded_error", "Overloaded", "overloaded"),
        ("rate_limit_error", "Slow down", "rate_limit"),
        ("api_error", "Internal server error", "server"),
        ("invalid_request_error", "messages: text content blocks must be non-empty", "bad_request"),
        (
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            "context_overflow",
        ),
    ],
)
async def test_error_event_mid_stream(error_type: str, message: str, kind: str, wire):
    body = sse(
        _start(),
        _block(0, {"type": "text", "text": ""}),
        _delta(0, {"type": "text_delta", "text": "Hel"}),
        ("error", {"type": "error", "error": {"type": error_type, "message": message}}),
    )
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(AnthropicProvider), HELLO, body)
    assert wire.records == [TextDelta("Hel")]
    assert caught.value.kind == kind
    assert message in caught.value.message


async def test_a_stream_cut_before_message_stop_is_incomplete(wire):
    body = sse(
        _start(),
        _block(0, {"type": "text", "text": ""}),
        _delta(0, {"type": "text_delta", "text": "Hel"}),
        _stop(0),
        _end("end_turn")[0],
    )
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(AnthropicProvider), HELLO, body)
    assert caught.value.kind == "incomplete"
    assert caught.value.message == "test: the stream ended before the response was complete"
    assert caught.value.retryable


async def test_url_and_headers(wire):
    provider = wire.provider(
        AnthropicProvider,
        base_url="https://api.anthropic.com/",
        api_key="sk-ant",
        headers={"x-extra": "1"},
    )
    await wire.run(provider, HELLO, sse(_start(), *_end("end_turn")))
    sent = wire.sent[-1]
    assert str(sent.url) == "https://api.anthropic.com/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["x-extra"] == "1"
    assert "authorization" not in sent.headers
    assert wire.body == request_body(HELLO)
