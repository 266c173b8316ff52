"""The OpenAI Chat Completions wire format, streamed: every OpenAI-compatible server speaks it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    ToolResultMessage,
    UserMessage,
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
from auger.llm.wire import (
    HttpProvider,
    PendingCall,
    data_url,
    decode,
    incomplete,
    stream_error,
)

_FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


def _content_part(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    return {"type": "text", "text": part.text}


def _user_content(message: UserMessage) -> str | list[dict[str, Any]]:
    # plain text as a string: some local servers accept nothing else
    if any(isinstance(p, ImagePart) for p in message.content):
        return [_content_part(p) for p in message.content]
    return message.text


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    calls = message.tool_calls
    text = message.text
    if not text and not calls:
        return None
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in calls
        ]
    return out


def chat_messages(system: str, messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """`messages` as chat messages, the system prompt first."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    # tool messages carry text only: their images follow, as a user turn
    images: list[ImagePart] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            out.append({"role": "tool", "tool_call_id": message.call_id, "content": message.text})
            images.extend(p for p in message.content if isinstance(p, ImagePart))
            continue
        if images:
            out.append({"role": "user", "content": [_content_part(p) for p in images]})
            images = []
        if isinstance(message, AssistantMessage):
            if turn := _assistant(message):
                out.append(turn)
        else:
            out.append({"role": "user", "content": _user_content(message)})
    if images:
        out.append({"role": "user", "content": [_content_part(p) for p in images]})
    return out


def request_body(request: Request) -> dict[str, Any]:
    """The JSON body of a streamed chat completion."""
    body: dict[str, Any] = {
        "model": request.model.name,
        "messages": chat_messages(request.system, request.messages),
        "max_tokens": request.max_tokens or request.model.max_output,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    if request.reasoning:
        body["reasoning_effort"] = request.reasoning
    return body


def _usage(usage: dict[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        usage.get("prompt_tokens") or 0,
        usage.get("completion_tokens") or 0,
        details.get("cached_tokens"),
    )


def _close(kind: str, parts: list[str]) -> Record:
    text = "".join(parts)
    return TextDone(text) if kind == "text" else ReasoningDone(text)


class OpenAIChatProvider(HttpProvider):
    """Streams from an OpenAI-compatible Chat Completions API (`POST /chat/completions`)."""

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one streamed response."""
        kind: str | None = None  # the open block: "text" or "reasoning"
        parts: list[str] = []
        by_index: dict[Any, PendingCall] = {}
        pending: list[PendingCall] = []  # calls not yet done, in the model's order
        called = 0
        finish: str | None = None
        usage: dict[str, Any] | None = None
        done = False
        events = self._http.events("/chat/completions", request_body(request), exchange)
        async with aclosing(events):
            async for _, raw in events:
                if raw == "[DONE]":
                    done = True
                    continue
                chunk = decode(self.name, raw)
                if error := chunk.get("error"):
                    raise stream_error(self.name, error)
                if choices := chunk.get("choices"):
                    choice = choices[0]
                    if delta := choice.get("delta"):
                        # DeepSeek and vLLM say reasoning_content; Ollama and OpenRouter, reasoning
                        if text := delta.get("reasoning_content") or delta.get("reasoning"):
                            if kind != "reasoning":
                                if kind:
                                    yield _close(kind, parts)
                                kind = "reasoning"
                                parts = []
                            parts.append(text)
                            yield ReasoningDelta(text)
                        if text := delta.get("content"):
                            if kind != "text":
                                if kind:
                                    yield _close(kind, parts)
                                kind = "text"
                                parts = []
                            parts.append(text)
                            yield TextDelta(text)
                        if tool_calls := delta.get("tool_calls"):
                            if kind:
                                yield _close(kind, parts)
                                kind = None
                            for piece in tool_calls:
                                index = piece.get("index", 0)
                                call = by_index.get(index)
                                call_id = piece.get("id")
                                function = piece.get("function") or {}
                                # a new id at a known index is a new call (servers without index)
                                if call is None or (call_id and call_id != call.call_id):
                                    call = PendingCall(
                                        call_id or f"call_{called}", function.get("name") or ""
                                    )
                                    by_index[index] = call
                                    pending.append(call)
                                    called += 1
                                if arguments := function.get("arguments"):
                                    yield call.delta(arguments)
                    if reason := choice.get("finish_reason"):
                        finish = reason
                        if kind:
                            yield _close(kind, parts)
                            kind = None
                        for call in pending:
                            yield call.done()
                        pending = []
                if counts := chunk.get("usage"):
                    usage = counts
        # without [DONE], only a clean end after both the finish reason and the usage is whole
        if not done and (finish is None or usage is None):
            raise incomplete(self.name)
        if kind:
            yield _close(kind, parts)
        for call in pending:
            yield call.done()
        yield TokenUsageDone(request.model.price(_usage(usage)))
        normalized = _FINISH_REASONS.get(finish or "", "other")
        if normalized == "stop" and called:  # Ollama and others say stop after calling tools
            normalized = "tool_calls"
        yield FinishReasonDone(normalized, finish)
