"""The Anthropic Messages wire format, streamed: a pure request builder and one state machine."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, ClassVar

import msgspec

from auger.llm import server_tools
from auger.llm.anthropic_body import (
    API,
    INTERLEAVED,
    THINKING_BUDGETS,
    messages_body,
    request_body,
)
from auger.llm.errors import ProviderError
from auger.llm.provider import Exchange, Request, ThinkingStyle
from auger.llm.records import (
    FinishReasonDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
)
from auger.llm.replay import Sealer
from auger.llm.usage import Usage, tokens
from auger.llm.wire import (
    HttpProvider,
    PendingCall,
    UniqueIds,
    decode,
    incomplete,
    malformed,
    stream_error,
    string,
)

__all__ = ["API", "THINKING_BUDGETS", "AnthropicProvider", "messages_body", "request_body"]

API_VERSION = "2023-06-01"
_MAX_PAUSES = 8  # `pause_turn` continuations of one response

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "model_context_window_exceeded": "context_window",
}


def _merge_usage(usage: dict[str, Any], update: dict[str, Any] | None) -> None:
    # message_delta repeats the counts, some as null; the latest known value wins
    if update:
        usage.update((k, v) for k, v in update.items() if v is not None)


def _usage(usage: dict[str, Any]) -> Usage:
    cache_read = tokens(usage.get("cache_read_input_tokens"))
    cache_write = tokens(usage.get("cache_creation_input_tokens"))
    # the writes split by TTL, each priced at its own rate
    hour = tokens((usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens"))
    fresh = tokens(usage.get("input_tokens")) or 0
    total_input = fresh + (cache_read or 0) + (cache_write or 0)
    output = tokens(usage.get("output_tokens")) or 0
    return Usage(total_input, output, cache_read, cache_write, cache_write_1h_tokens=hour)


def _refuses_enabled(error: ProviderError) -> bool:
    # "thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" …
    return error.kind == "bad_request" and "thinking.type.enabled" in error.message


class _Headers:
    """An exchange that adds `headers` to the request before the runtime's hooks see it."""

    def __init__(self, inner: Exchange, headers: dict[str, str]) -> None:
        self._inner = inner
        self._headers = headers

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """`headers` added (a comma-separated value joined to one already set), then the
        runtime's hooks."""
        merged = dict(headers)
        for name, value in self._headers.items():
            merged[name] = f"{merged[name]},{value}" if merged.get(name) else value
        return await self._inner.before_request(url, merged, body)

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """The runtime's hooks."""
        await self._inner.after_response(url, status, headers)


def _close(
    kind: str | None,
    block: dict[str, Any],
    parts: list[str],
    signature: str,
    call: PendingCall,
    seal: Sealer,
) -> list[Record]:
    if kind == "text":
        return [TextDone("".join(parts))]
    if kind == "tool_use":
        out: list[Record] = []
        if not call.parts and block.get("input"):  # proxies send the input whole
            out.append(call.delta(json.dumps(block["input"])))
        return [*out, call.done()]
    if kind == "thinking":
        done = ReasoningDone("".join(parts))
        return [done, seal("thinking_signature", {"signature": signature})] if signature else [done]
    if kind == "redacted_thinking":
        return [seal("redacted_thinking", {"data": str(block.get("data", ""))})]
    if kind is not None:  # server tools and their results: kept so history stays whole
        raw = _raw(kind, block, parts, signature)
        return [*server_tools.anthropic_block(raw), seal("server_block", raw)]
    return []


def _raw(kind: str | None, block: dict[str, Any], parts: list[str], signature: str) -> Any:
    """The block as the API would take it back."""
    out = dict(block)
    if kind == "text":
        out["text"] = "".join(parts)
    elif kind == "thinking":
        out |= {"thinking": "".join(parts), "signature": signature}
    elif parts:  # tool_use / server_tool_use: the streamed JSON input
        try:
            out["input"] = msgspec.json.decode("".join(parts))
        except msgspec.DecodeError:
            out["input"] = {}
    return out


class AnthropicProvider(HttpProvider):
    """Streams responses from the Anthropic Messages API (`POST /v1/messages`).

    A model that refuses `thinking.type.enabled` is asked again with adaptive thinking, once,
    and from then on (`_adaptive`: the models known to take nothing else)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._adaptive: set[str] = set()

    api: ClassVar[str] = API  # a cloud serving Messages names its own

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`x-api-key` (when there is one) and the API version."""
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    async def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The records of one response; a `pause_turn` is continued until the turn ends."""
        style: ThinkingStyle | None = "adaptive" if request.model.name in self._adaptive else None
        try:
            async for record in self._records(request, exchange, style):
                yield record
        except ProviderError as err:
            if style is not None or not request.reasoning or not _refuses_enabled(err):
                raise
            self._adaptive.add(request.model.name)  # the refusal comes before any record
            async for record in self._records(request, exchange, "adaptive"):
                yield record

    async def _records(
        self, request: Request, exchange: Exchange, style: ThinkingStyle | None
    ) -> AsyncGenerator[Record, None]:
        """One loop reads every event (no inner generator: each hop costs every delta)."""
        with malformed(self.name):
            body = request_body(request, ttl=self.cache.ttl, style=style, api=self.api)
            if request.tools and body.get("thinking", {}).get("type") == "enabled":
                exchange = _Headers(exchange, {"anthropic-beta": INTERLEAVED})
            ids = UniqueIds(request)
            seal = Sealer(request)
            total = request.model.no_usage  # each response priced alone: a tier is per request
            stop: str | None = None
            for _ in range(_MAX_PAUSES):
                blocks: list[dict[str, Any]] = []  # this response's, for a `pause_turn`
                usage: dict[str, Any] = {}
                stop, finished = None, False
                kind: str | None = None  # the open content block's type; they never interleave
                block: dict[str, Any] = {}
                parts: list[str] = []
                signature = ""
                call = PendingCall("", "")
                events = self.events("/v1/messages", body, exchange)
                async with aclosing(events):
                    async for _, raw in events:
                        data = decode(self.name, raw)
                        etype = data.get("type")
                        if etype == "content_block_delta":
                            delta = data["delta"]
                            dtype = delta["type"]
                            if dtype == "text_delta":
                                text = string(delta["text"])
                                parts.append(text)
                                yield TextDelta(text)
                            elif dtype == "input_json_delta":
                                if piece := string(delta["partial_json"]):
                                    parts.append(piece)
                                    if kind == "tool_use":  # server tools stream input: not ours
                                        yield call.delta(piece)
                            elif dtype == "thinking_delta":
                                text = string(delta["thinking"])
                                parts.append(text)
                                yield ReasoningDelta(text)
                            elif dtype == "signature_delta":
                                signature = string(delta["signature"])
                            elif dtype == "citations_delta":
                                for record in server_tools.anthropic_citation(delta["citation"]):
                                    yield record
                        elif etype == "content_block_start":
                            block = dict(data["content_block"])
                            kind = block["type"]
                            parts = []
                            if kind == "tool_use":
                                block["id"] = ids(block.get("id"))
                                call = PendingCall(string(block["id"]), string(block["name"]))
                            elif kind == "thinking":
                                signature = block.get("signature") or ""
                                if block.get("thinking"):  # whole, from some proxies
                                    text = string(block["thinking"])
                                    parts.append(text)
                                    yield ReasoningDelta(text)
                            elif kind == "text" and block.get("text"):
                                text = string(block["text"])
                                parts.append(text)
                                yield TextDelta(text)
                        elif etype == "content_block_stop":
                            for record in _close(kind, block, parts, signature, call, seal):
                                yield record
                            blocks.append(_raw(kind, block, parts, signature))
                            kind = None
                        elif etype == "message_delta":
                            stop = data["delta"].get("stop_reason") or stop
                            _merge_usage(usage, data.get("usage"))
                        elif etype == "message_start":
                            _merge_usage(usage, data["message"].get("usage"))
                        elif etype == "message_stop":
                            finished = True
                        elif etype == "error":
                            raise stream_error(self.name, data.get("error") or {})
                if not finished:
                    raise incomplete(self.name)
                total = total + request.model.price(_usage(usage))
                searches = server_tools.anthropic_searches(usage)
                total = total + server_tools.search_cost(request.model, searches)
                if stop != "pause_turn":
                    break
                # the paused turn goes back as it came, and the server picks up where it stopped
                messages = body["messages"]
                if messages and messages[-1]["role"] == "assistant":
                    messages[-1]["content"].extend(blocks)
                else:
                    messages.append({"role": "assistant", "content": blocks})
            yield TokenUsageDone(total)
            yield FinishReasonDone(_STOP_REASONS.get(stop or "", "other"), stop)
