"""Multi-step conversations carrying every kind of opaque provider data each wire format keeps,
played through the real parsers (over loopback) and the engine's message builder, and the
follow-up request bodies every request builder makes of them.

`tests/fixtures/provider_data/` holds what the code of 2026-12-01 (commit 71adc4c) made of these
conversations: the session file it wrote and the bodies it sent. A session written then must
replay byte for byte as a session written now does (`tests/llm/test_provider_data.py`).

The streams follow the official references:
- Messages: https://platform.claude.com/docs/en/build-with-claude/extended-thinking (signed and
  redacted thinking) and .../agents-and-tools/tool-use/web-search-tool (server tool blocks)
- Responses: https://platform.openai.com/docs/api-reference/responses-streaming (reasoning items
  with `encrypted_content`, `web_search_call`, a message's `phase`)
- Chat Completions: https://openrouter.ai/docs/use-cases/reasoning-tokens (`reasoning_details`),
  https://ai.google.dev/gemini-api/docs/openai (`extra_content.google.thought_signature`),
  https://api-docs.deepseek.com/guides/thinking_mode (`reasoning_content`)
- Gemini: https://ai.google.dev/gemini-api/docs/thought-signatures
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import msgspec

from auger.engine.attempt import MessageBuilder
from auger.llm import anthropic, gemini, openai_chat_body, openai_responses
from auger.llm.anthropic import AnthropicProvider
from auger.llm.formats import Endpoint
from auger.llm.gemini import GeminiProvider
from auger.llm.messages import AssistantMessage, Message, TextPart, ToolResultMessage, UserMessage
from auger.llm.openai_chat import OpenAIChatProvider
from auger.llm.openai_responses import OpenAIResponsesProvider
from auger.llm.provider import Model, PassThrough, Request, ToolSpec
from auger.llm.wire import HttpProvider
from support.server import FakeServer, Reply, sse

SYSTEM = "You are auger. Be brief."
TOOLS = (
    ToolSpec(
        "read",
        "Read a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
)
ASK = UserMessage.of("Read notes.txt, then search the weather.")
AGAIN = UserMessage.of("Once more.")
READ = {"path": "notes.txt"}
RESULT = "hello from notes"


# --- Anthropic Messages (also Bedrock's and Vertex's Claude) ------------------------------------


def _a(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"type": kind, **fields}


def _start(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return _a("content_block_start", index=index, content_block=block)


def _delta(index: int, **delta: Any) -> tuple[str, dict[str, Any]]:
    return _a("content_block_delta", index=index, delta=delta)


def _stop(index: int) -> tuple[str, dict[str, Any]]:
    return _a("content_block_stop", index=index)


def _thinking(index: int, text: str, signature: str) -> list[tuple[str, dict[str, Any]]]:
    events = [_start(index, {"type": "thinking", "thinking": "", "signature": ""})]
    if text:
        events.append(_delta(index, type="thinking_delta", thinking=text))
    return [*events, _delta(index, type="signature_delta", signature=signature), _stop(index)]


def _text(index: int, text: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        _start(index, {"type": "text", "text": ""}),
        _delta(index, type="text_delta", text=text),
        _stop(index),
    ]


def _use(index: int, call_id: str, kind: str = "tool_use", name: str = "read") -> list[Any]:
    arguments = msgspec.json.encode(READ if kind == "tool_use" else {"query": "weather"})
    return [
        _start(index, {"type": kind, "id": call_id, "name": name, "input": {}}),
        _delta(index, type="input_json_delta", partial_json=arguments.decode()),
        _stop(index),
    ]


def _message(stop: str, *blocks: Any) -> bytes:
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m"}
    start["usage"] = {"input_tokens": 20, "output_tokens": 1}
    return sse(
        _a("message_start", message=start),
        *blocks,
        _a("message_delta", delta={"stop_reason": stop}, usage={"output_tokens": 9}),
        _a("message_stop"),
    )


SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "url": "https://weather.example/paris",
            "title": "Paris weather",
            "encrypted_content": "EqgfCioIARgBIiQ3",
            "page_age": None,
        }
    ],
}

MESSAGES_STEPS = [
    _message(
        "tool_use",
        *_thinking(0, "Let me look at the notes.", "EqQBCgIYAhIM1gbc"),
        _start(1, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzi"}),
        _stop(1),
        *_text(2, "I will read them."),
        *_use(3, "toolu_01"),
    ),
    _message(
        "tool_use",
        *_use(0, "srvtoolu_1", "server_tool_use", "web_search"),
        _start(1, SEARCH_RESULT),
        _stop(1),
        *_thinking(2, "", "EpYCCkYIBRgC"),  # signed, its text omitted
        *_text(3, "Found the weather."),
        *_use(4, "toolu_02"),
    ),
    _message("end_turn", *_thinking(0, "Both done.", "ErUBCkYIBBgC"), *_text(1, "All done.")),
]


# --- OpenAI Responses ---------------------------------------------------------------------------


def _r(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"type": kind, **fields}


def _reasoning(index: int, item_id: str, summary: str, encrypted: str | None) -> list[Any]:
    item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    events = [_r("response.output_item.added", output_index=index, item=item)]
    if summary:
        events += [
            _r("response.reasoning_summary_part.added", output_index=index, summary_index=0),
            _r("response.reasoning_summary_text.delta", output_index=index, delta=summary),
        ]
    done = item | ({"encrypted_content": encrypted} if encrypted else {})
    return [*events, _r("response.output_item.done", output_index=index, item=done)]


def _said(index: int, text: str, phase: str) -> list[Any]:
    item = {"type": "message", "id": f"msg_{index}", "role": "assistant", "phase": phase}
    return [
        _r("response.output_item.added", output_index=index, item=item | {"content": []}),
        _r("response.output_text.delta", output_index=index, delta=text),
        _r("response.output_text.done", output_index=index, text=text),
    ]


def _function(index: int, call_id: str) -> list[Any]:
    call = {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": "read"}
    arguments = msgspec.json.encode(READ).decode()
    return [
        _r("response.output_item.added", output_index=index, item=call | {"arguments": ""}),
        _r("response.function_call_arguments.delta", output_index=index, delta=arguments),
        _r("response.output_item.done", output_index=index, item=call | {"arguments": arguments}),
    ]


def _response(*events: Any) -> bytes:
    usage = {"input_tokens": 20, "output_tokens": 9, "input_tokens_details": {"cached_tokens": 0}}
    return sse(*events, _r("response.completed", response={"status": "completed", "usage": usage}))


SEARCH_CALL = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {
        "type": "search",
        "query": "weather paris",
        "sources": [{"type": "url", "url": "https://weather.example/paris"}],
    },
}

RESPONSES_STEPS = [
    _response(
        *_reasoning(0, "rs_1", "Plan the read.", "gAAAAABo1"),
        *_said(1, "I will read the notes.", "commentary"),
        *_function(2, "call_1"),
    ),
    _response(
        _r("response.output_item.done", output_index=0, item=SEARCH_CALL),
        *_reasoning(1, "rs_2", "", "gAAAAABo2"),  # encrypted, no summary
        *_reasoning(2, "rs_3", "Unsigned thought.", None),  # a summary, nothing encrypted
        *_said(3, "Searched.", "commentary"),
        *_function(4, "call_2"),
    ),
    _response(
        *_reasoning(0, "rs_4", "Wrap up.", "gAAAAABo4"),
        *_said(1, "All done.", "final_answer"),
    ),
]


# --- Chat Completions (OpenRouter, Gemini's OpenAI layer, DeepSeek) ------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def _completion(*chunks: dict[str, Any]) -> bytes:
    usage = {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29}
    tail = {"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage}
    return sse(*chunks, tail, done=True)


def _call(call_id: str, signature: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": "read", "arguments": msgspec.json.encode(READ).decode()},
    }
    if signature:
        call["extra_content"] = {"google": {"thought_signature": signature}}
    return call


OPENROUTER_STEPS = [
    _completion(
        _chunk(
            {
                "role": "assistant",
                "reasoning": "Think ",
                "reasoning_details": [
                    {"type": "reasoning.text", "text": "Think ", "format": "unknown", "index": 0}
                ],
            }
        ),
        _chunk(
            {
                "reasoning": "first.",
                "reasoning_details": [
                    {
                        "type": "reasoning.text",
                        "text": "first.",
                        "signature": "c2lnMQ==",
                        "index": 0,
                    }
                ],
            }
        ),
        _chunk({"tool_calls": [_call("call_1", "CvQBAdHtim9")]}),
        _chunk({}, "tool_calls"),
    ),
    _completion(
        _chunk(
            {
                "role": "assistant",
                "reasoning_details": [
                    {"type": "reasoning.encrypted", "data": "ZW5jcnlwdGVk", "index": 0}
                ],
            }
        ),
        _chunk({"content": "All done."}),
        _chunk({}, "stop"),
    ),
]

DEEPSEEK_STEPS = [
    _completion(
        _chunk({"role": "assistant", "reasoning_content": "Think 1."}),
        _chunk({"tool_calls": [_call("call_1")]}),
        _chunk({}, "tool_calls"),
    ),
    _completion(
        _chunk({"role": "assistant", "reasoning_content": "Think 2."}),
        _chunk({"content": "All done."}),
        _chunk({}, "stop"),
    ),
]


# --- Gemini (also Vertex's) ---------------------------------------------------------------------


def _candidate(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def _gemini(*chunks: dict[str, Any]) -> bytes:
    usage = {"promptTokenCount": 20, "candidatesTokenCount": 9, "totalTokenCount": 29}
    return sse(*chunks[:-1], chunks[-1] | {"usageMetadata": usage})


def _fc(call_id: str) -> dict[str, Any]:
    return {"functionCall": {"id": call_id, "name": "read", "args": READ}}


GEMINI_STEPS = [
    _gemini(
        _candidate({"text": "Plan the ", "thought": True}),
        _candidate({"text": "reads.", "thought": True, "thoughtSignature": "CiQB4/H/thought1"}),
        _candidate(_fc("g_1") | {"thoughtSignature": "CiQB4/H/call1"}, _fc("g_2")),
        _candidate(finish="STOP"),
    ),
    _gemini(
        _candidate({"text": "Read "}, {"text": "twice.", "thoughtSignature": "CiQB4/H/text2"}),
        _candidate({"text": " All done."}),
        _candidate({"text": "", "thoughtSignature": "CiQB4/H/tail2"}, finish="STOP"),
    ),
]


# --- the conversations --------------------------------------------------------------------------


class _Bedrock(AnthropicProvider):
    api: ClassVar[str] = "bedrock"


class _VertexClaude(AnthropicProvider):
    api: ClassVar[str] = "vertex"


class _VertexGemini(GeminiProvider):
    api: ClassVar[str] = "vertex"


@dataclass(frozen=True)
class Talk:
    """One conversation: a model of one wire format, and the responses it streams."""

    name: str
    model: Model
    provider: type[HttpProvider]
    steps: list[bytes]
    host: bool = False  # the base URL is the bare host (Messages)


def _m(provider: str, name: str, api: str) -> Model:
    return Model(provider, name, api, max_output=32_000, reasoning=True)


CLAUDE = _m("anthropic", "claude-sonnet-4-5", "messages")
TALKS = [
    Talk("messages", CLAUDE, AnthropicProvider, MESSAGES_STEPS, host=True),
    Talk(
        "bedrock",
        _m("bedrock", "anthropic.claude-sonnet-4-5", "bedrock"),
        _Bedrock,
        MESSAGES_STEPS,
        host=True,
    ),
    Talk(
        "vertex-claude",
        _m("vertex", "claude-sonnet-4-5", "vertex"),
        _VertexClaude,
        MESSAGES_STEPS,
        host=True,
    ),
    Talk("responses", _m("openai", "gpt-5", "responses"), OpenAIResponsesProvider, RESPONSES_STEPS),
    Talk(
        "openrouter",
        _m("openrouter", "google/gemini-3-pro", "chat-completions"),
        OpenAIChatProvider,
        OPENROUTER_STEPS,
    ),
    Talk(
        "deepseek",
        _m("deepseek", "deepseek-v4-pro", "chat-completions"),
        OpenAIChatProvider,
        DEEPSEEK_STEPS,
    ),
    Talk("gemini", _m("google", "gemini-3-pro", "gemini"), GeminiProvider, GEMINI_STEPS),
    Talk("vertex-gemini", _m("vertex", "gemini-3-pro", "vertex"), _VertexGemini, GEMINI_STEPS),
]


def request(model: Model, messages: tuple[Message, ...], system: str = SYSTEM) -> Request:
    """A request of the conversation: its tools, reasoning on, the session's cache key."""
    return Request(
        model,
        system,
        messages,
        TOOLS,
        reasoning="medium",
        cache_key="auger-session-1",
        server_tools=("web_search",),
    )


async def play(talk: Talk) -> list[Message]:
    """The conversation's messages: each response streamed by the real parser from a loopback
    server, built by the engine's message builder, each call answered with `RESULT`."""
    messages: list[Message] = [ASK]
    with FakeServer() as server:
        for body in talk.steps:
            server.queue(Reply(body=body))
        url = server.url if talk.host else f"{server.url}/v1"
        provider = talk.provider.from_endpoint(Endpoint("test", url, "sk-test"))
        try:
            for _ in talk.steps:
                builder = MessageBuilder()
                async for record in provider.stream(
                    request(talk.model, tuple(messages)), PassThrough()
                ):
                    builder.add(record)
                m = talk.model
                answer = AssistantMessage(
                    tuple(builder.parts), builder.usage, builder.finish, m.provider, m.name, m.api
                )
                messages.append(answer)
                for call in answer.tool_calls:
                    messages.append(ToolResultMessage(call.call_id, call.name, (TextPart(RESULT),)))
        finally:
            await provider.aclose()
    return messages


BUILDERS = {
    "messages": lambda r: anthropic.request_body(r, api="messages"),
    "bedrock": lambda r: anthropic.request_body(r, api="bedrock"),
    "vertex-claude": lambda r: anthropic.request_body(r, api="vertex"),
    "responses": openai_responses.request_body,
    "openrouter": openai_chat_body.request_body,
    "deepseek": openai_chat_body.request_body,
    "gemini": lambda r: gemini.request_body(r, "gemini"),
    "vertex-gemini": lambda r: gemini.request_body(r, "vertex"),
}


def bodies(talk: Talk, messages: list[Message]) -> dict[str, str]:
    """The next request's body, as each builder sends it: to the same model (the data goes
    back), after an edited system prompt and to another model (the bound data is dropped), and
    to every other format's model."""
    history = (*messages, AGAIN)
    own = talk.model
    targets = {
        "same": (talk.name, own, SYSTEM),
        "edited-system": (talk.name, own, SYSTEM + " Edited."),
        "other-model": (talk.name, msgspec.structs.replace(own, name=own.name + "-next"), SYSTEM),
    }
    for other in TALKS:
        if other.name != talk.name:
            targets[f"to-{other.name}"] = (other.name, other.model, SYSTEM)
    out = {}
    for label, (builder, model, system) in targets.items():
        body = BUILDERS[builder](request(model, history, system))
        out[label] = msgspec.json.encode(body).decode()
    return out
