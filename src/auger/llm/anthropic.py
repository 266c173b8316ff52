"""The Anthropic Messages wire format, streamed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from auger.llm.arguments import arguments_or_empty
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserPart,
)
from auger.llm.provider import Exchange, Request
from auger.llm.records import (
    FinishReasonDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
)
from auger.llm.usage import Usage
from auger.llm.wire import HttpProvider, PendingCall, decode, incomplete, stream_error

API_VERSION = "2023-06-01"
THINKING_BUDGETS = {"low": 4096, "medium": 10_000, "high": 32_000}
_MIN_BUDGET = 1024  # the API's smallest thinking budget

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "model_context_window_exceeded": "context_window",
}


def _user_block(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.data},
        }
    return {"type": "text", "text": part.text}


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    if any(isinstance(p, ImagePart) for p in message.content):
        content: str | list[dict[str, Any]] = [
            _user_block(p) for p in message.content if isinstance(p, ImagePart) or p.text
        ]
    else:
        content = message.text
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": message.call_id,
        "content": content,
    }
    if message.is_error:
        block["is_error"] = True
    return block


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            if part.text:  # the API rejects empty text blocks
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": part.call_id,
                    "name": part.name,
                    "input": arguments_or_empty(part.arguments),
                }
            )
        elif isinstance(part, ReasoningPart) and part.signature and message.api == "messages":
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
    return blocks


def messages_body(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """`messages` as Messages API turns, the last user turn marked as a prompt-cache breakpoint."""
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the user turn collecting consecutive tool results
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(_tool_result(message))
            continue
        results = None
        if isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message)
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": "user", "content": [_user_block(p) for p in message.content]})
    for turn in reversed(out):
        if turn["role"] == "user":
            if turn["content"]:
                turn["content"][-1]["cache_control"] = {"type": "ephemeral"}
            break
    return out


def request_body(request: Request) -> dict[str, Any]:
    """The JSON body of a streamed Messages call."""
    max_tokens = request.max_tokens or request.model.max_output
    body: dict[str, Any] = {
        "model": request.model.name,
        "max_tokens": max_tokens,
        "messages": messages_body(request.messages),
        "stream": True,
    }
    if request.system:
        body["system"] = [
            {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
        ]
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
    if request.reasoning:
        budget = THINKING_BUDGETS.get(request.reasoning, THINKING_BUDGETS["medium"])
        if budget >= max_tokens:  # the budget must leave room for the answer
            budget = max(max_tokens - _MIN_BUDGET, _MIN_BUDGET)
            body["max_tokens"] = max(max_tokens, budget + _MIN_BUDGET)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return body


def _merge_usage(usage: dict[str, Any], update: dict[str, Any] | None) -> None:
    # message_delta repeats the counts, some as null; the latest known value wins
    if update:
        usage.update((k, v) for k, v in update.items() if v is not None)


class AnthropicProvider(HttpProvider):
    """Streams responses from the Anthropic Messages API (`POST /v1/messages`)."""

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`x-api-key` (when there is one) and the API version."""
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one streamed response."""
        usage: dict[str, Any] = {}
        stop: str | None = None
        finished = False
        kind: str | None = None  # the open content block's type; blocks never interleave
        parts: list[str] = []
        signature = ""
        call = PendingCall("", "")
        events = self._http.events("/v1/messages", request_body(request), exchange)
        async with aclosing(events):
            async for _, raw in events:
                data = decode(self.name, raw)
                etype = data["type"]
                if etype == "content_block_delta":
                    delta = data["delta"]
                    dtype = delta["type"]
                    if dtype == "text_delta":
                        text = delta["text"]
                        parts.append(text)
                        yield TextDelta(text)
                    elif dtype == "input_json_delta":
                        # server tools (web search) stream their input too: not ours to run
                        if kind == "tool_use" and (piece := delta["partial_json"]):
                            yield call.delta(piece)
                    elif dtype == "thinking_delta":
                        text = delta["thinking"]
                        parts.append(text)
                        yield ReasoningDelta(text)
                    elif dtype == "signature_delta":
                        signature = delta["signature"]
                elif etype == "content_block_start":
                    block = data["content_block"]
                    kind = block["type"]
                    parts = []
                    if kind == "tool_use":
                        call = PendingCall(block["id"], block["name"])
                    elif kind == "thinking":
                        signature = block.get("signature") or ""
                elif etype == "content_block_stop":
                    if kind == "text":
                        yield TextDone("".join(parts))
                    elif kind == "tool_use":
                        yield call.done()
                    elif kind == "thinking":
                        yield ReasoningDone("".join(parts), signature or None)
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
        cache_read = usage.get("cache_read_input_tokens")
        cache_write = usage.get("cache_creation_input_tokens")
        total_input = usage.get("input_tokens", 0) + (cache_read or 0) + (cache_write or 0)
        tokens = Usage(total_input, usage.get("output_tokens", 0), cache_read, cache_write)
        yield TokenUsageDone(request.model.price(tokens))
        yield FinishReasonDone(_STOP_REASONS.get(stop or "", "other"), stop)
