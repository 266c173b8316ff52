"""Provider data that breaks its format's promises is a `bad_response` naming the provider."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auger.llm.errors import ProviderError
from auger.llm.messages import UserMessage
from auger.llm.provider import Model, Request
from support.server import FakeServer, Reply
from support.wire import stream

HI = (UserMessage.of("hi"),)


def _event(data: Any, name: str | None = None) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _start() -> bytes:
    message = {"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {}}
    return _event({"type": "message_start", "message": message}, "message_start")


def _text_block() -> bytes:
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}
    return _event(block, "content_block_start")


def _chunk(delta: Any) -> bytes:
    return _event({"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})


CASES: list[tuple[str, str, bytes]] = [
    (
        "messages",
        "text is a number",
        _start()
        + _text_block()
        + _event(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 7}}
        ),
    ),
    (
        "messages",
        "delta is missing",
        _start() + _text_block() + _event({"type": "content_block_delta", "index": 0}),
    ),
    ("messages", "invalid JSON", _start() + b"event: ping\ndata: {oops\n\n"),
    ("messages", "bad UTF-8", _start() + b'data: {"type": "ping", "x": "\xff\xfe"}\n\n'),
    (
        "responses",
        "delta is an object",
        _event({"type": "response.output_text.delta", "output_index": 0, "delta": {"text": "x"}}),
    ),
    ("responses", "an event that is a list", _event([1, 2, 3])),
    (
        "responses",
        "item without a type",
        _event({"type": "response.output_item.added", "output_index": 0, "item": {}}),
    ),
    ("chat-completions", "content is a number", _chunk({"content": 42})),
    ("chat-completions", "delta is a string", _chunk("hello")),
    ("chat-completions", "content part is a number", _chunk({"content": [1]})),
    (
        "chat-completions",
        "tool call name is an object",
        _chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": {"x": 1}}}]}),
    ),
    ("chat-completions", "choices is a number", _event({"id": "c", "choices": 5})),
    (
        "chat-completions",
        "usage counts are text",
        _chunk({"content": "hi"})
        + _event({"choices": [], "usage": {"prompt_tokens": "10", "completion_tokens": "x"}})
        + b"data: [DONE]\n\n",
    ),
    (
        "messages",
        "usage counts are text",
        _event(
            {"type": "message_start", "message": {"usage": {"input_tokens": "10"}}},
            "message_start",
        )
        + _event({"type": "message_stop"}, "message_stop"),
    ),
    (
        "responses",
        "usage counts are text",
        _event(
            {"type": "response.completed", "response": {"usage": {"input_tokens": [10]}}},
            "response.completed",
        ),
    ),
]


@pytest.mark.parametrize(("api", "case", "body"), CASES, ids=[f"{a}: {c}" for a, c, _ in CASES])
async def test_malformed_data_is_a_bad_response_naming_the_provider(
    api: str, case: str, body: bytes
) -> None:
    request = Request(Model("test", "m", api), "", HI)
    with FakeServer() as server:
        server.queue(Reply(body=body))
        with pytest.raises(ProviderError) as caught:
            await stream(server, api, request)
    assert caught.value.kind == "bad_response", caught.value.message
    assert caught.value.message.startswith("test:")
    assert not caught.value.retryable


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_TYPES = {
    "messages": [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "error",
    ],
    "responses": [
        "response.output_text.delta",
        "response.output_item.added",
        "response.output_item.done",
        "response.function_call_arguments.delta",
        "response.completed",
        "response.failed",
        "error",
    ],
    "chat-completions": [],
}
_FIELDS = [
    "delta",
    "content_block",
    "message",
    "item",
    "output_index",
    "index",
    "response",
    "choices",
    "usage",
    "error",
    "text",
    "x_groq",
]


@st.composite
def _events(draw: st.DrawFn, api: str) -> bytes:
    out = b""
    for _ in range(draw(st.integers(1, 5))):
        event: dict[str, Any] = draw(st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=3))
        if _TYPES[api]:
            event["type"] = draw(st.sampled_from(_TYPES[api]))
        out += _event(event)
    return out + (b"data: [DONE]\n\n" if api == "chat-completions" else b"")


@pytest.mark.slow
@pytest.mark.parametrize("api", sorted(_TYPES))
def test_random_events_end_in_records_or_a_provider_error(api: str) -> None:
    request = Request(Model("test", "m", api), "", HI)
    with FakeServer() as server:

        @settings(max_examples=60, deadline=None)
        @given(body=_events(api))
        def run(body: bytes) -> None:
            server.queue(Reply(body=body))
            try:
                asyncio.run(stream(server, api, request))
            except ProviderError as exc:
                assert exc.message.startswith("test")

        run()
