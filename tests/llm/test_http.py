"""The three wire formats over real HTTP, against the fake server on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from auger.llm import anthropic, openai_chat, openai_responses
from auger.llm.errors import ProviderError
from auger.llm.messages import UserMessage
from auger.llm.provider import Model, PassThrough, Provider, Request
from auger.llm.records import FinishReasonDone, Record, TextDelta, TextDone, TokenUsageDone
from support.server import FakeServer, Reply, sse


@dataclass(frozen=True)
class Format:
    """What one wire format looks like on the wire."""

    make: Callable[..., Provider]
    body: Callable[[Request], dict[str, Any]]
    prefix: str  # what the base URL adds to the server's
    path: str
    key_header: str
    key_value: str
    ok: bytes  # a complete reply saying "Hi"
    error_body: Callable[[str, str], dict[str, Any]]


def _anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _openai_error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


FORMATS = {
    "anthropic": Format(
        anthropic.AnthropicProvider,
        anthropic.request_body,
        "",
        "/v1/messages",
        "x-api-key",
        "sk-test",
        sse(
            ("message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 3}}}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "Hi"},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ),
        _anthropic_error,
    ),
    "openai-responses": Format(
        openai_responses.OpenAIResponsesProvider,
        openai_responses.request_body,
        "/v1",
        "/v1/responses",
        "authorization",
        "Bearer sk-test",
        sse(
            ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "Hi"}),
            ("response.output_text.done", {"type": "response.output_text.done", "text": "Hi"}),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        "status": "completed",
                        "usage": {"input_tokens": 3, "output_tokens": 1},
                    },
                },
            ),
        ),
        _openai_error,
    ),
    "chat-completions": Format(
        openai_chat.OpenAIChatProvider,
        openai_chat.request_body,
        "/v1",
        "/v1/chat/completions",
        "authorization",
        "Bearer sk-test",
        sse(
            {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
            done=True,
        ),
        _openai_error,
    ),
}

REQUEST = Request(Model("test", "some-model", "messages"), "Be brief.", (UserMessage.of("Hello"),))


@pytest.fixture(params=sorted(FORMATS))
def fmt(request: pytest.FixtureRequest) -> Format:
    """Each wire format in turn."""
    return FORMATS[request.param]


@pytest.fixture
async def provider(fmt: Format, fake_server: FakeServer) -> AsyncIterator[Provider]:
    """A provider of the wire format, talking to the fake server."""
    made = fmt.make("test", fake_server.url + fmt.prefix, "sk-test", key_env="TEST_API_KEY")
    yield made
    await made.aclose()


async def collect(provider: Provider, exchange: Any = None) -> list[Record]:
    """Every record of one streamed response to REQUEST."""
    return [r async for r in provider.stream(REQUEST, exchange or PassThrough())]


async def test_request_as_received(fmt: Format, provider: Provider, fake_server: FakeServer):
    fake_server.queue(Reply(body=fmt.ok))
    records = await collect(provider)
    assert [type(r) for r in records] == [TextDelta, TextDone, TokenUsageDone, FinishReasonDone]
    assert records[0] == TextDelta("Hi")
    assert records[-2].usage.input_tokens == 3 and records[-2].usage.output_tokens == 1
    assert records[-1].finish_reason == "stop"
    (seen,) = fake_server.requests
    assert (seen.method, seen.path) == ("POST", fmt.path)
    assert seen.headers[fmt.key_header] == fmt.key_value
    assert seen.headers["content-type"] == "application/json"
    assert seen.body == fmt.body(REQUEST)


async def test_a_reply_in_slow_chunks(fmt: Format, provider: Provider, fake_server: FakeServer):
    pieces = [fmt.ok[i : i + 7] for i in range(0, len(fmt.ok), 7)]
    fake_server.queue(Reply(chunks=pieces, chunk_delay=0.0005))
    records = await collect(provider)
    assert records[:2] == [TextDelta("Hi"), TextDone("Hi")]


async def test_rate_limited(fmt: Format, provider: Provider, fake_server: FakeServer):
    body = fmt.error_body("rate_limit_error", "Number of requests exceeded your rate limit")
    fake_server.queue(Reply(429, json.dumps(body).encode(), headers={"Retry-After": "2"}))
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    error = caught.value
    assert (error.kind, error.status, error.retry_after) == ("rate_limit", 429, 2.0)
    assert error.retryable
    assert "rate limit" in error.message


async def test_server_error(fmt: Format, provider: Provider, fake_server: FakeServer):
    fake_server.queue(
        Reply(500, json.dumps(fmt.error_body("api_error", "Internal error")).encode())
    )
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    assert (caught.value.kind, caught.value.status) == ("server", 500)
    assert caught.value.retryable


async def test_bad_key_names_the_variable(fmt: Format, provider: Provider, fake_server: FakeServer):
    body = fmt.error_body("authentication_error", "invalid x-api-key")
    fake_server.queue(Reply(401, json.dumps(body).encode()))
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    assert caught.value.kind == "auth"
    assert "TEST_API_KEY" in caught.value.message
    assert not caught.value.retryable


async def test_prompt_too_long(fmt: Format, provider: Provider, fake_server: FakeServer):
    body = fmt.error_body(
        "invalid_request_error", "prompt is too long: 201234 tokens > 200000 maximum"
    )
    fake_server.queue(Reply(400, json.dumps(body).encode()))
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    assert caught.value.kind == "context_overflow"


async def test_connection_cut_mid_stream(fmt: Format, provider: Provider, fake_server: FakeServer):
    fake_server.queue(Reply(body=fmt.ok, cut_after=len(fmt.ok) // 2))
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    assert caught.value.kind in ("incomplete", "network")
    assert caught.value.retryable


async def test_nothing_queued_is_a_server_error(provider: Provider):
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    assert caught.value.kind == "server"
    assert "no reply queued" in caught.value.message


class Hooks:
    """An exchange that adds a header, replaces the body, and keeps what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.sent_to = ""

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        self.sent_to = url
        return headers | {"x-trace": "t-1"}, {**body, "model": "swapped-model"}

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        self.seen.append((url, status))


async def test_exchange_hooks(fmt: Format, provider: Provider, fake_server: FakeServer):
    fake_server.queue(Reply(body=fmt.ok), Reply(503, b'{"error": {"message": "busy"}}'))
    hooks = Hooks()
    await collect(provider, hooks)
    url = fake_server.url + fmt.path
    assert hooks.sent_to == url
    seen = fake_server.requests[0]
    assert seen.headers["x-trace"] == "t-1"
    assert seen.headers[fmt.key_header] == fmt.key_value
    assert seen.body == {**fmt.body(REQUEST), "model": "swapped-model"}
    with pytest.raises(ProviderError) as caught:
        await collect(provider, hooks)
    assert caught.value.kind == "overloaded"
    assert hooks.seen == [(url, 200), (url, 503)]


# --- the fake server itself ---------------------------------------------------------------------


def _raw(server: FakeServer, body: bytes = b"{}") -> tuple[int, dict[str, str], bytes]:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    try:
        conn.request("POST", "/x?y=1", body, {"content-type": "application/json"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_fake_server_replies_in_order_and_records_requests(fake_server: FakeServer):
    fake_server.queue(Reply(body=b"data: 1\n\n"), Reply(404, b'{"error": {}}'))
    status, headers, body = _raw(fake_server, b'{"a": 1}')
    assert (status, headers["content-type"], body) == (200, "text/event-stream", b"data: 1\n\n")
    assert headers["connection"] == "close"
    status, headers, _ = _raw(fake_server)
    assert (status, headers["content-type"]) == (404, "application/json")
    status, _, body = _raw(fake_server)
    assert status == 500 and b"no reply queued" in body
    first = fake_server.requests[0]
    assert (first.method, first.path, first.body) == ("POST", "/x?y=1", {"a": 1})
    assert len(fake_server.requests) == 3


def test_fake_server_cuts_the_body_short(fake_server: FakeServer):
    fake_server.queue(
        Reply(chunks=[b"abc", b"defg", b"hij"], cut_after=5, headers={"content-type": "text/plain"})
    )
    status, headers, body = _raw(fake_server)
    assert (status, headers["content-type"], body) == (200, "text/plain", b"abcde")
    assert "content-length" not in headers


def test_sse_builder():
    assert sse(("ping", {"type": "ping"}), {"x": 1}, done=True) == (
        b'event: ping\ndata: {"type": "ping"}\n\ndata: {"x": 1}\n\ndata: [DONE]\n\n'
    )
