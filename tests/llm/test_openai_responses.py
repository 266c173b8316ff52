"""The OpenAI Responses wire format: recordings, request bodies, and cases no recording has."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

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
from auger.llm.openai_responses import OpenAIResponsesProvider, request_body
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

MODEL = lookup("openai", "gpt-5-nano", "responses")
HELLO = Request(MODEL, "", (UserMessage.of("Say hello"),))
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


def priced(input_tokens: int, output_tokens: int, cached: int | None = 0) -> TokenUsageDone:
    """The usage record the model yields for these counts."""
    return TokenUsageDone(MODEL.price(Usage(input_tokens, output_tokens, cached)))


# --- recorded streams -------------------------------------------------------------------------


async def test_every_recording_parses_the_same_however_it_is_split(
    responses_sse: Path, wire, check
):
    body = responses_sse.read_bytes()
    provider = wire.provider(OpenAIResponsesProvider)
    whole = await wire.run(provider, HELLO, body)
    check(whole)
    cuts = sorted(random.Random(responses_sse.name).sample(range(1, len(body)), 20))
    assert await wire.replay(provider, HELLO, body, cuts) == whole
    one_byte_chunks = [body[i : i + 1] for i in range(len(body))]
    assert await wire.run(provider, HELLO, one_byte_chunks) == whole


async def test_recorded_text(recorded, wire):
    path = recorded(
        "openai-responses", "stream_text__when_messages_are_provided__yields_stream_events.sse"
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, path.read_bytes())
    pieces = ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]
    assert records == [
        *(TextDelta(p) for p in pieces),
        TextDone("Hello! How can I help you today?"),
        priced(8, 143),
        FinishReasonDone("stop", "completed"),
    ]


async def test_recorded_tool_call(recorded, wire):
    path = recorded(
        "openai-responses", "tool_calling___stream_text__tool_call_done_has_arguments.sse"
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, path.read_bytes())
    call_id = "call_t4zn3XNtScS4qj9JfQExCTS2"
    assert records == [
        ToolCallDelta(call_id, "get_weather", '{"'),
        ToolCallDelta(call_id, None, "city"),
        ToolCallDelta(call_id, None, '":"'),
        ToolCallDelta(call_id, None, "Toronto"),
        ToolCallDelta(call_id, None, '"}'),
        ToolCallDone(call_id, "get_weather", '{"city":"Toronto"}'),
        priced(56, 148),
        FinishReasonDone("tool_calls", "completed"),
    ]


async def test_recorded_reasoning_summary_in_two_parts(recorded, wire):
    path = recorded(
        "openai-responses",
        "stream_text__with_reasoning_parameter__yields_ReasoningDelta_events.sse",
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, path.read_bytes())
    assert records[:2] == [ReasoningDelta("**Answer"), ReasoningDelta("ing")]
    done = next(r for r in records if isinstance(r, ReasoningDone))
    first, second = done.content.split("\n\n**Providing")
    assert first.startswith("**Answering basic math**\n\nThe question is simple")
    assert first.endswith("Keeping it concise is key!")
    assert second.endswith("ensuring the user knows it's right!")
    # the recording did not ask for encrypted reasoning: nothing to keep
    assert not [r for r in records if isinstance(r, ProviderDataDone)]
    assert records[-3:] == [
        TextDone("4\n\nIn base-10 arithmetic, 2 + 2 = 4."),
        priced(13, 343),
        FinishReasonDone("stop", "completed"),
    ]


async def test_an_empty_reasoning_item_yields_nothing(recorded, wire):
    path = recorded(
        "openai-responses",
        "stream_text__with_reasoning_parameter__yields_reasoning_before_text.sse",
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, path.read_bytes())
    assert [type(r) for r in records] == [TextDelta, TextDone, TokenUsageDone, FinishReasonDone]


# --- request bodies -----------------------------------------------------------------------------


def _plain_input(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Input items in one spelling: string content as content parts, no item ids."""
    out = []
    for item in items:
        item = {k: v for k, v in item.items() if k != "id"}
        content = item.get("content")
        if isinstance(content, str):
            kind = "output_text" if item["role"] == "assistant" else "input_text"
            item["content"] = [{"type": kind, "text": content}]
            if item["role"] == "assistant":
                item["type"] = "message"
        out.append(item)
    return out


RECORDED_REQUESTS = {
    "stream_text__when_prompt_is_provided__yields_TextDelta_events": HELLO,
    "generate_text__when_system_and_prompt_are_provided__returns_an_Assistant_message": Request(
        MODEL, "Be concise", (UserMessage.of("Say hello"),)
    ),
    "generate_text__with_an_Assistant_message__returns_an_Assistant_message": Request(
        MODEL,
        "",
        (
            UserMessage.of("Say hello"),
            AssistantMessage((TextPart("Hello!"),), api="responses"),
            UserMessage.of("How are you?"),
        ),
    ),
    "stream_text__with_reasoning_parameter__yields_ReasoningDelta_events": Request(
        MODEL, "", (UserMessage.of("What is 2+2?"),), reasoning="medium"
    ),
    "tool_calling___stream_text__yields_tool_call_delta": Request(
        MODEL, "", (UserMessage.of("What is the weather in Toronto?"),), (WEATHER,)
    ),
    "tool_calling___generate_text__with_tool_message": Request(
        MODEL,
        "",
        (
            UserMessage.of("What is the weather in Toronto?"),
            AssistantMessage(
                (ToolCall("call_tool_123", "get_weather", '{"city":"Toronto"}'),), api="responses"
            ),
            ToolResultMessage(
                "call_tool_123",
                "get_weather",
                (TextPart("The weather in Toronto is 15 degrees Celsius."),),
            ),
        ),
        (WEATHER,),
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED_REQUESTS))
def test_body_matches_the_recorded_request(name: str, recorded):
    expected = json.loads(recorded("openai-responses", f"{name}.request.json").read_text())
    assert expected["path"] == "/v1/responses"
    want = expected["body"]
    body = request_body(RECORDED_REQUESTS[name])
    assert body["model"] == want["model"]
    assert body["stream"] is True
    assert body["store"] is False
    system = [i["content"] for i in want["input"] if i.get("role") == "developer"]
    assert body.get("instructions") == (system[0] if system else None)
    conversation = [i for i in want["input"] if i.get("role") != "developer"]
    assert _plain_input(body["input"]) == _plain_input(conversation)
    tools = [{k: v for k, v in t.items() if k != "strict"} for t in want.get("tools", [])]
    assert [{k: v for k, v in t.items() if k != "strict"} for t in body.get("tools", [])] == tools
    # a reasoning model always asks for its encrypted reasoning and a summary
    assert body["reasoning"].get("effort") == (want.get("reasoning") or {}).get("effort")
    assert body["include"] == ["reasoning.encrypted_content"]


def test_body_details():
    request = Request(
        MODEL,
        "sys",
        (
            UserMessage((TextPart("see"), ImagePart("image/png", "AAAA"))),
            AssistantMessage(
                (
                    ReasoningPart("thought"),
                    ProviderData("encrypted_reasoning", {"id": "rs_1", "encrypted_content": "ENC"}),
                    ReasoningPart("unsigned"),
                    TextPart("Reading."),
                    ToolCall("call_1", "read", '{"path": "a"}'),
                ),
                api="responses",
            ),
            ToolResultMessage("call_1", "read", (TextPart("img:"), ImagePart("image/jpeg", "BB"))),
        ),
        (ToolSpec("read", "Read a file"),),
        max_tokens=1000,
        reasoning="high",
    )
    body = request_body(request)
    assert body["instructions"] == "sys"
    assert body["max_output_tokens"] == 1000
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
    ]
    assert body["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "see"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
        {
            "id": "rs_1",
            "encrypted_content": "ENC",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "thought"}],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Reading."}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read",
            "arguments": '{"path": "a"}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "img:"},
                {"type": "input_image", "image_url": "data:image/jpeg;base64,BB"},
            ],
        },
    ]


def test_reasoning_from_another_api_is_not_sent():
    message = AssistantMessage(
        (
            ReasoningPart("hm"),
            ProviderData("thinking_signature", {"signature": "anthropic-sig"}),
            TextPart("4"),
        ),
        api="messages",
    )
    body = request_body(Request(MODEL, "", (message,)))
    assert [item["type"] for item in body["input"]] == ["message"]
    assert body["max_output_tokens"] == MODEL.max_output


# --- cases the recordings lack ----------------------------------------------------------------


def _ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"type": kind, **fields}


def _added(index: int, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return _ev("response.output_item.added", output_index=index, item=item)


def _done(index: int, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return _ev("response.output_item.done", output_index=index, item=item)


def _call(call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return {
        "id": f"fc_{call_id}",
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


def _args(index: int, piece: str) -> tuple[str, dict[str, Any]]:
    return _ev("response.function_call_arguments.delta", output_index=index, delta=piece)


def _completed(input_tokens: int = 100, output_tokens: int = 20, cached: int = 0):
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    return _ev("response.completed", response={"status": "completed", "usage": usage})


async def test_reasoning_text_then_two_interleaved_tool_calls(wire, check):
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = sse(
        _ev("response.created", response={"status": "in_progress"}),
        _added(0, reasoning),
        _ev("response.reasoning_summary_part.added", output_index=0, summary_index=0),
        _ev("response.reasoning_summary_text.delta", output_index=0, delta="Plan."),
        _done(0, {**reasoning, "encrypted_content": "gAAAA"}),
        _added(1, {"id": "msg_1", "type": "message", "role": "assistant", "content": []}),
        _ev("response.output_text.delta", output_index=1, delta="Checking "),
        _ev("response.output_text.delta", output_index=1, delta="both."),
        _ev("response.output_text.done", output_index=1, text="Checking both."),
        _done(1, {"id": "msg_1", "type": "message"}),
        _added(2, _call("call_a", "read")),
        _added(3, _call("call_b", "grep")),
        _args(2, '{"path":'),
        _args(3, '{"pattern":'),
        _args(2, ' "a.py"}'),
        _args(3, ' "x"}'),
        _ev("response.function_call_arguments.done", output_index=2, arguments='{"path": "a.py"}'),
        _done(2, _call("call_a", "read", '{"path": "a.py"}')),
        _done(3, _call("call_b", "grep", '{"pattern": "x"}')),
        _completed(input_tokens=1200, output_tokens=80, cached=1000),
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    check(records)
    assert records == [
        ReasoningDelta("Plan."),
        ReasoningDone("Plan."),
        records[2],
        TextDelta("Checking "),
        TextDelta("both."),
        TextDone("Checking both."),
        ToolCallDelta("call_a", "read", '{"path":'),
        ToolCallDelta("call_b", "grep", '{"pattern":'),
        ToolCallDelta("call_a", None, ' "a.py"}'),
        ToolCallDelta("call_b", None, ' "x"}'),
        ToolCallDone("call_a", "read", '{"path": "a.py"}'),
        ToolCallDone("call_b", "grep", '{"pattern": "x"}'),
        priced(1200, 80, cached=1000),
        FinishReasonDone("tool_calls", "completed"),
    ]
    kept = records[2]
    assert isinstance(kept, ProviderDataDone) and kept.part.kind == "encrypted_reasoning"
    assert kept.part.data == {"id": "rs_1", "encrypted_content": "gAAAA"}
    assert kept.part.prefix is not None
    reply = AssistantMessage(
        (ReasoningPart("Plan."), kept.part),
        provider=MODEL.provider,
        model=MODEL.name,
        api="responses",
    )
    sent_back = request_body(Request(MODEL, "", (*HELLO.messages, reply)))
    assert sent_back["input"][1:] == [
        {
            "id": "rs_1",
            "encrypted_content": "gAAAA",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Plan."}],
        }
    ]


async def test_arguments_sent_only_whole_still_stream_as_one_delta(wire, check):
    body = sse(
        _added(0, _call("call_a", "ls")),
        _done(0, _call("call_a", "ls", '{"path": "."}')),
        _added(1, _call("call_b", "pwd")),
        _done(1, _call("call_b", "pwd")),
        _completed(),
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    check(records)
    assert records[:3] == [
        ToolCallDelta("call_a", "ls", '{"path": "."}'),
        ToolCallDone("call_a", "ls", '{"path": "."}'),
        ToolCallDone("call_b", "pwd", "{}"),
    ]


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("max_output_tokens", "length"), ("content_filter", "content_filter"), ("other", "other")],
)
async def test_incomplete_responses(reason: str, finish: str, wire, check):
    response = {
        "status": "incomplete",
        "incomplete_details": {"reason": reason},
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    body = sse(
        _ev("response.output_text.delta", output_index=0, delta="Part"),
        _ev("response.output_text.done", output_index=0, text="Part"),
        _ev("response.incomplete", response=response),
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    check(records)
    assert records[-2:] == [priced(10, 5, cached=None), FinishReasonDone(finish, reason)]


async def test_refusal_reads_as_text(wire, check):
    body = sse(
        _ev("response.refusal.delta", output_index=0, delta="I can't"),
        _ev("response.refusal.done", output_index=0, refusal="I can't"),
        _completed(),
    )
    records = await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    check(records)
    assert records[:2] == [TextDelta("I can't"), TextDone("I can't")]


@pytest.mark.parametrize(
    ("event", "kind"),
    [
        (
            _ev("error", code="rate_limit_exceeded", message="Rate limit reached", param=None),
            "rate_limit",
        ),
        (_ev("error", code="server_error", message="Something went wrong", param=None), "server"),
        (
            _ev("error", code=None, message="Your input exceeds the context window of this model"),
            "context_overflow",
        ),
        (
            _ev(
                "response.failed",
                response={"status": "failed", "error": {"code": "server_error", "message": "boom"}},
            ),
            "server",
        ),
        (
            _ev(
                "response.failed",
                response={"status": "failed", "error": {"code": "invalid_prompt", "message": "no"}},
            ),
            "bad_request",
        ),
    ],
)
async def test_error_events_mid_stream(event, kind: str, wire):
    body = sse(_ev("response.output_text.delta", output_index=0, delta="Hi"), event)
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    assert wire.records == [TextDelta("Hi")]
    assert caught.value.kind == kind


async def test_a_stream_cut_before_completion_is_incomplete(wire):
    body = sse(
        _added(0, _call("call_a", "ls")),
        _args(0, '{"pa'),
    )
    with pytest.raises(ProviderError) as caught:
        await wire.run(wire.provider(OpenAIResponsesProvider), HELLO, body)
    assert caught.value.kind == "incomplete"
    assert wire.records == [ToolCallDelta("call_a", "ls", '{"pa')]


async def test_url_and_headers(wire):
    provider = wire.provider(
        OpenAIResponsesProvider, base_url="https://api.openai.com/v1", api_key="sk-oa"
    )
    await wire.run(provider, HELLO, sse(_completed()))
    sent = wire.sent[-1]
    assert str(sent.url) == "https://api.openai.com/v1/responses"
    assert sent.headers["authorization"] == "Bearer sk-oa"
    assert wire.body == request_body(HELLO)
