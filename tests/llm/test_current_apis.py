"""Samples built from the current official references, through each parser and the request
builder of the next step (what is parsed, and the exact body sent back)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from auger.llm import anthropic, openai_chat, openai_responses
from auger.llm.errors import ProviderError, classify_status
from auger.llm.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.provider import Model, Request
from auger.llm.records import (
    ProviderDataDone,
    ReasoningDone,
    Record,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.replay import Sealer
from support.server import FakeServer, Reply, sse
from support.wire import stream

CLAUDE = Model("test", "claude-sonnet-4-5", "messages", max_output=64000, reasoning=True)
OPUS = Model(
    "test", "claude-opus-4-7", "messages", max_output=64000, reasoning=True, thinking="adaptive"
)
GPT = Model("test", "gpt-5", "responses", reasoning=True)
CHAT = Model("test", "m", "chat-completions")
ASK = UserMessage.of("What is the weather in Paris?")


def _reply(parts: list[Record], model: Model) -> AssistantMessage:
    """The assistant message the engine builds from a provider's records."""
    content: list[Any] = []
    for r in parts:
        if isinstance(r, TextDone):
            content.append(TextPart(r.content))
        elif isinstance(r, ReasoningDone):
            content.append(ReasoningPart(r.content))
        elif isinstance(r, ProviderDataDone):
            content.append(r.part)
        elif isinstance(r, ToolCallDone):
            content.append(ToolCall(r.call_id, r.name, r.arguments))
    return AssistantMessage(
        tuple(content), provider=model.provider, model=model.name, api=model.api
    )


def _then(model: Model, *messages: Message, **kw: Any) -> Request:
    return Request(model, "", (ASK, *messages), **kw)


# --- Anthropic Messages -------------------------------------------------------------------


def _a(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"type": kind, **fields}


def _message(stop: str, *blocks: tuple[str, dict[str, Any]]) -> bytes:
    start = {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "m"}
    start["usage"] = {"input_tokens": 10, "output_tokens": 1}
    return sse(
        _a("message_start", message=start),
        *blocks,
        _a("message_delta", delta={"stop_reason": stop}, usage={"output_tokens": 7}),
        _a("message_stop"),
    )


REDACTED = (
    "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"
    "2pQmJ8Vd"
)


async def test_redacted_thinking_is_kept_and_sent_back_unchanged() -> None:
    body = _message(
        "tool_use",
        _a(
            "content_block_start",
            index=0,
            content_block={"type": "redacted_thinking", "data": REDACTED},
        ),
        _a("content_block_stop", index=0),
        _a(
            "content_block_start",
            index=1,
            content_block={
                "type": "tool_use",
                "id": "toolu_01",
                "name": "get_weather",
                "input": {},
            },
        ),
        _a(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": '{"location": "Paris"}'},
        ),
        _a("content_block_stop", index=1),
    )
    with FakeServer() as server:
        server.queue(Reply(body=body))
        records = await stream(server, "messages", _then(CLAUDE, reasoning="medium"))
    reply = _reply(records, CLAUDE)
    result = ToolResultMessage("toolu_01", "get_weather", (TextPart("15C"),))
    sent = anthropic.request_body(_then(CLAUDE, reply, result, reasoning="medium"))
    assert sent["messages"][1]["content"] == [
        {"type": "redacted_thinking", "data": REDACTED},
        {
            "type": "tool_use",
            "id": "toolu_01",
            "name": "get_weather",
            "input": {"location": "Paris"},
        },
    ]
    assert sent["thinking"]["type"] == "enabled"


def test_adaptive_models_get_adaptive_thinking_and_an_effort() -> None:
    # https://platform.claude.com/docs/en/build-with-claude/thinking: `display` "omitted" (the
    # latest models' default) returns empty thinking; "summarized" shows it between tool calls
    body = anthropic.request_body(_then(OPUS, reasoning="high"))
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "high"}
    # https://platform.claude.com/docs/en/build-with-claude/effort: xhigh and max above high
    for effort in ("xhigh", "max"):
        top = anthropic.request_body(_then(OPUS, reasoning=effort))
        assert top["output_config"] == {"effort": effort}
    older = anthropic.request_body(_then(CLAUDE, reasoning="high"))
    assert older["thinking"] == {"type": "enabled", "budget_tokens": 32000}
    assert "output_config" not in older


async def test_pause_turn_is_continued_with_the_server_tool_blocks_sent_back() -> None:
    search = {
        "type": "server_tool_use",
        "id": "srvtoolu_01A2B3C4D5E6F7G8H9",
        "name": "web_search",
        "input": {},
    }
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01A2B3C4D5E6F7G8H9",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.com",
                "title": "Q",
                "encrypted_content": "EqgfCioIARgB",
                "page_age": "April 30, 2025",
            }
        ],
    }
    paused = _message(
        "pause_turn",
        _a("content_block_start", index=0, content_block=search),
        _a(
            "content_block_delta",
            index=0,
            delta={
                "type": "input_json_delta",
                "partial_json": '{"query": "latest quantum computing breakthroughs"}',
            },
        ),
        _a("content_block_stop", index=0),
        _a("content_block_start", index=1, content_block=result),
        _a("content_block_stop", index=1),
    )
    done = _message(
        "end_turn",
        _a("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        _a("content_block_delta", index=0, delta={"type": "text_delta", "text": "Found it."}),
        _a("content_block_stop", index=0),
    )
    with FakeServer() as server:
        server.queue(Reply(body=paused), Reply(body=done))
        records = await stream(server, "messages", _then(CLAUDE))
        continued = server.requests[1].body["messages"]
    assert continued[-1]["role"] == "assistant"
    assert [b["type"] for b in continued[-1]["content"]] == [
        "server_tool_use",
        "web_search_tool_result",
    ]
    assert continued[-1]["content"][0]["input"] == {
        "query": "latest quantum computing breakthroughs"
    }
    assert records[-1].finish_reason == "stop" and TextDone("Found it.") in records
    assert isinstance(records[-2], TokenUsageDone) and records[-2].usage.output_tokens == 14
    # and the next step sends the server-tool blocks back in history
    sent = anthropic.request_body(_then(CLAUDE, _reply(records, CLAUDE), UserMessage.of("more")))
    assert [b["type"] for b in sent["messages"][1]["content"]] == [
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]


async def test_tool_input_sent_whole_in_content_block_start_is_kept() -> None:
    body = _message(
        "tool_use",
        _a(
            "content_block_start",
            index=0,
            content_block={
                "type": "tool_use",
                "id": "toolu_1",
                "name": "ls",
                "input": {"path": "."},
            },
        ),
        _a("content_block_stop", index=0),
    )
    with FakeServer() as server:
        server.queue(Reply(body=body))
        records = await stream(server, "messages", _then(CLAUDE))
    assert ToolCallDone("toolu_1", "ls", '{"path": "."}') in records


def test_thinking_bound_to_another_prefix_is_dropped_and_thinking_paused() -> None:
    thought = ReasoningPart("Let me check.")
    first = Request(CLAUDE, "You are terse.", (ASK,))
    signed = Sealer(first)("thinking_signature", {"signature": "EqQBCgIYAhIM1gbcDa9GJwZA"})
    reply = AssistantMessage(
        (thought, signed.part, ToolCall("toolu_1", "ls", "{}")),
        provider="test",
        model=CLAUDE.name,
        api="messages",
    )
    result = ToolResultMessage("toolu_1", "ls", (TextPart("a.py"),))
    same = anthropic.request_body(
        Request(CLAUDE, "You are terse.", (ASK, reply, result), reasoning="low")
    )
    assert same["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Let me check.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA",
    }
    assert same["thinking"]["type"] == "enabled"
    edited = anthropic.request_body(
        Request(CLAUDE, "You are terse. Answer in French.", (ASK, reply, result), reasoning="low")
    )
    assert [b["type"] for b in edited["messages"][1]["content"]] == ["tool_use"]
    assert "thinking" not in edited  # the continued tool turn cannot open with its thinking


# --- OpenAI Responses -----------------------------------------------------------------------


def test_reasoning_models_keep_encrypted_reasoning_without_the_reasoning_flag() -> None:
    body = openai_responses.request_body(_then(GPT))
    assert body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"summary": "auto"}
    key = body["prompt_cache_key"]
    assert (
        openai_responses.request_body(_then(GPT, AssistantMessage((TextPart("hi"),))))[
            "prompt_cache_key"
        ]
        == key
    )
    assert (
        openai_responses.request_body(_then(GPT, cache_key="session-1"))["prompt_cache_key"]
        == "session-1"
    )
    plain = openai_responses.request_body(_then(Model("test", "gpt-4.1", "responses")))
    assert "include" not in plain and "reasoning" not in plain


def _completed() -> tuple[str, dict[str, Any]]:
    usage = {"input_tokens": 5, "output_tokens": 3, "input_tokens_details": {"cached_tokens": 0}}
    return _a("response.completed", response={"status": "completed", "usage": usage})


async def test_a_400_about_reasoning_summaries_is_sent_again_without_them() -> None:
    refused = json.dumps(
        {
            "error": {
                "message": "Your organization must be verified to generate reasoning summaries.",
                "type": "invalid_request_error",
                "param": "reasoning.summary",
                "code": "unsupported_value",
            }
        }
    )
    ok = sse(
        _a("response.output_text.delta", output_index=0, delta="hi"),
        _a("response.output_text.done", output_index=0, text="hi"),
        _completed(),
    )
    with FakeServer() as server:
        server.queue(Reply(400, refused.encode()), Reply(body=ok))
        records = await stream(server, "responses", _then(GPT, reasoning="low"))
        first, second = (r.body for r in server.requests)
    assert first["reasoning"] == {"effort": "low", "summary": "auto"}
    assert second["reasoning"] == {"effort": "low"}
    assert TextDone("hi") in records


async def test_argument_deltas_without_output_item_added() -> None:
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "ls",
        "arguments": '{"path": "."}',
    }
    body = sse(
        _a(
            "response.function_call_arguments.delta",
            output_index=0,
            item_id="fc_1",
            delta='{"path":',
        ),
        _a("response.function_call_arguments.delta", output_index=0, item_id="fc_1", delta=' "."}'),
        _a("response.output_item.done", output_index=0, item=call),
        _completed(),
    )
    with FakeServer() as server:
        server.queue(Reply(body=body))
        records = await stream(server, "responses", _then(GPT))
    assert ToolCallDone("call_1", "ls", '{"path": "."}') in records
    assert records[-1].finish_reason == "tool_calls"


def test_insufficient_quota_is_not_retried() -> None:
    message = "You exceeded your current quota, please check your plan and billing details."
    kind = classify_status(429, message)
    assert kind == "quota" and not ProviderError(kind, message).retryable


# --- Chat Completions -----------------------------------------------------------------------


def _c(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choices = (
        [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
        if delta is not None or finish
        else []
    )
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": choices,
        **extra,
    }


async def _chat(
    body: bytes, request: Request, compat: dict[str, Any] | None = None
) -> tuple[list[Record], dict[str, Any]]:
    with FakeServer() as server:
        server.queue(Reply(body=body))
        records = await stream(server, "chat-completions", request, compat=compat)
        return records, server.requests[0].body


async def test_max_completion_tokens_where_the_provider_needs_it() -> None:
    body = sse(
        _c({"content": "hi"}),
        _c(finish="stop"),
        _c(usage={"prompt_tokens": 1, "completion_tokens": 1}),
        done=True,
    )
    _, sent = await _chat(body, _then(CHAT), {"max_tokens_field": "max_completion_tokens"})
    assert "max_tokens" not in sent and sent["max_completion_tokens"] == CHAT.max_output


async def test_deepseek_reasoning_content_goes_back_on_tool_turns() -> None:
    body = sse(
        _c({"role": "assistant", "reasoning_content": "Need the weather."}),
        _c(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_00_abc",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
                    }
                ]
            }
        ),
        _c(finish="tool_calls"),
        _c(
            usage={
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "prompt_cache_hit_tokens": 64,
                "prompt_cache_miss_tokens": 36,
            }
        ),
        done=True,
    )
    records, _ = await _chat(body, _then(CHAT), {"reasoning_content": True})
    usage = next(r for r in records if isinstance(r, TokenUsageDone)).usage
    assert (usage.input_tokens, usage.cache_read_tokens) == (100, 64)
    result = ToolResultMessage("call_00_abc", "get_weather", (TextPart("15C"),))
    compat = openai_chat.Compat(reasoning_content=True)
    sent = openai_chat.request_body(_then(CHAT, _reply(records, CHAT), result), compat)
    assert sent["messages"][1]["reasoning_content"] == "Need the weather."
    other = openai_chat.request_body(_then(CHAT, _reply(records, CHAT), result))
    assert "reasoning_content" not in other["messages"][1]


async def test_openrouter_reasoning_details_and_gemini_thought_signatures_go_back() -> None:
    body = sse(
        _c(
            {
                "role": "assistant",
                "reasoning": "Think",
                "reasoning_details": [
                    {
                        "type": "reasoning.text",
                        "text": "Think",
                        "index": 0,
                        "format": "anthropic-claude-v1",
                    }
                ],
            }
        ),
        _c(
            {
                "reasoning_details": [
                    {"type": "reasoning.text", "text": "ing.", "signature": "sig==", "index": 0}
                ]
            }
        ),
        _c(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "ls", "arguments": "{}"},
                        "extra_content": {"google": {"thought_signature": "CvQBAdHtim9"}},
                    }
                ]
            }
        ),
        _c(finish="tool_calls"),
        _c(usage={"prompt_tokens": 1, "completion_tokens": 1}),
        done=True,
    )
    records, _ = await _chat(body, _then(CHAT))
    sent = openai_chat.request_body(
        _then(CHAT, _reply(records, CHAT), ToolResultMessage("call_1", "ls", (TextPart("a"),)))
    )
    turn = sent["messages"][1]
    assert turn["reasoning_details"] == [
        {
            "type": "reasoning.text",
            "text": "Thinking.",
            "index": 0,
            "format": "anthropic-claude-v1",
            "signature": "sig==",
        }
    ]
    assert turn["tool_calls"][0]["extra_content"] == {
        "google": {"thought_signature": "CvQBAdHtim9"}
    }


async def test_list_content_object_arguments_unique_ids_and_groq_usage() -> None:
    body = sse(
        _c(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Two "}, {"type": "text", "text": "calls."}],
            }
        ),
        _c({"tool_calls": [{"index": 0, "function": {"name": "ls", "arguments": {"path": "."}}}]}),
        _c({"tool_calls": [{"index": 1, "function": {"name": "pwd", "arguments": ""}}]}),
        _c(
            finish="tool_calls",
            x_groq={"id": "req_1", "usage": {"prompt_tokens": 9, "completion_tokens": 4}},
        ),
        done=True,
    )
    records, _ = await _chat(body, _then(CHAT))
    again, _ = await _chat(body, _then(CHAT))
    assert TextDone("Two calls.") in records
    calls = [r for r in records if isinstance(r, ToolCallDone)]
    assert calls[0].arguments == '{"path": "."}'
    ids = {c.call_id for c in calls} | {r.call_id for r in again if isinstance(r, ToolCallDone)}
    assert len(ids) == 4  # unique within a response and across responses
    usage = next(r for r in records if isinstance(r, TokenUsageDone)).usage
    assert (usage.input_tokens, usage.output_tokens) == (9, 4)


@pytest.mark.parametrize(
    "builder",
    [
        lambda r: json.dumps(openai_chat.request_body(r)),
        lambda r: json.dumps(openai_responses.request_body(r)),
        lambda r: json.dumps(anthropic.request_body(r)),
    ],
)
def test_unparseable_arguments_are_never_sent_back(builder: Any) -> None:
    reply = AssistantMessage((ToolCall("call_1", "read", '{"path": "a.py"'),), api="x")
    result = ToolResultMessage(
        "call_1", "read", (TextPart("ERROR: not a JSON object"),), is_error=True
    )
    sent = builder(_then(CHAT, reply, result))
    assert '\\"a.py\\"' not in sent and "a.py" not in sent.replace("ERROR: not a JSON object", "")
    assert "not a JSON object" in sent


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 128000 tokens. However, your messages resulted "
        "in 130000 tokens.",
        "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, "
        "decrease input length or `max_tokens` and try again",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "the request exceeds the available context size, try increasing it",
        "This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
        "Please reduce the length of the messages or completion.",
        "prompt too long; exceeded max context length by 2000 tokens",
    ],
)
def test_each_servers_context_overflow_is_recognised(message: str) -> None:
    assert classify_status(400, message) == "context_overflow"


async def test_the_same_500_for_the_same_request_is_not_retried_a_third_time() -> None:
    broken = json.dumps(
        {"error": {"code": 500, "message": "Failed to parse tool call arguments as JSON"}}
    ).encode()
    with FakeServer() as server:
        server.queue(Reply(500, broken), Reply(500, broken))
        from auger.llm.formats import FORMATS, Endpoint
        from auger.llm.provider import PassThrough

        provider = FORMATS["chat-completions"].build(Endpoint("test", f"{server.url}/v1"))
        errors = []
        for _ in range(2):
            with pytest.raises(ProviderError) as err:
                [r async for r in provider.stream(_then(CHAT), PassThrough())]
            errors.append(err.value)
        await provider.aclose()
    assert [e.retryable for e in errors] == [True, False]
    assert "not retried" in errors[1].message


def test_the_catalog_chooses_adaptive_thinking_for_models_that_require_it() -> None:
    from auger.llm.catalog import known_models, lookup

    opus = lookup("anthropic", "claude-opus-5", "messages")
    assert (opus.thinking, opus.context_window, opus.max_output) == ("adaptive", 1_000_000, 128_000)
    body = anthropic.request_body(Request(opus, "", (ASK,), reasoning="medium"))
    assert body["thinking"]["type"] == "adaptive" and "budget_tokens" not in body["thinking"]
    assert not any(name.startswith("_") for name in known_models())


@pytest.mark.parametrize(
    ("name", "style"),
    [
        ("claude-opus-4-7", "adaptive"),  # adaptive-only, missing from the catalog
        ("claude-sonnet-5-7", "adaptive"),
        ("claude-haiku-6", "adaptive"),
        ("claude-opus-4-5-20251101", "enabled"),
        ("claude-3-7-sonnet-20250219", "enabled"),
        ("claude-custom", "enabled"),
    ],
)
def test_an_unlisted_claude_model_thinks_by_the_documented_rule(name: str, style: str) -> None:
    # https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking: adaptive from
    # Claude 4.6 on; Opus 4.7 and the Claude 5 family refuse `enabled`
    model = Model("anthropic", name, "messages", max_output=64_000)
    body = anthropic.request_body(Request(model, "", (ASK,), reasoning="high"))
    assert body["thinking"]["type"] == style


def test_tool_call_ids_from_another_provider_fit_anthropic_and_mistral() -> None:
    calls = (ToolCall("functions.read:0", "read", "{}"), ToolCall("fc_a|b" + "x" * 80, "ls", "{}"))
    results = tuple(ToolResultMessage(c.call_id, c.name, (TextPart("ok"),)) for c in calls)
    reply = AssistantMessage(calls, api="responses")
    sent = anthropic.request_body(_then(CLAUDE, reply, *results))
    uses = [b["id"] for b in sent["messages"][1]["content"]]
    assert uses[0] == "functions_read_0" and len(uses[1]) == 64
    assert [b["tool_use_id"] for b in sent["messages"][2]["content"]] == uses
    mistral = openai_chat.Compat(tool_call_ids="mistral")
    chat = openai_chat.request_body(_then(CHAT, reply, *results), mistral)
    ids = [c["id"] for c in chat["messages"][1]["tool_calls"]]
    assert all(len(i) == 9 and i.isalnum() for i in ids) and len(set(ids)) == 2
    assert [m["tool_call_id"] for m in chat["messages"][2:]] == ids
