"""The OpenAI Chat Completions wire format, streamed: every OpenAI-compatible server speaks it.

A pure request builder (`auger.llm.openai_chat_body`) and one state machine (`_Chunks`). What
servers add beyond OpenAI's shape is read and, where the server needs it, sent back: DeepSeek's
and llama.cpp's `reasoning_content`, OpenRouter's `reasoning_details`, Gemini's thought
signatures (`extra_content.google.thought_signature` on a tool call). Those are kept in the
message as `ProviderData` parts, sent back to the same provider only.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import msgspec

from auger.llm.messages import ProviderData
from auger.llm.openai_chat_body import API, Compat, chat_messages, request_body
from auger.llm.provider import Exchange, Request
from auger.llm.records import (
    FinishReasonDone,
    ProviderDataDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
)
from auger.llm.textstream import recover, watch
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

__all__ = ["API", "Compat", "OpenAIChatProvider", "chat_messages", "request_body"]

_FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


def _usage(chunk_usage: dict[str, Any] | None) -> Usage:
    if not chunk_usage:
        return Usage()
    details = chunk_usage.get("prompt_tokens_details") or {}
    cached = tokens(details.get("cached_tokens"))
    if cached is None:  # DeepSeek counts cache hits its own way
        cached = tokens(chunk_usage.get("prompt_cache_hit_tokens"))
    # OpenRouter's cost of the request (https://openrouter.ai/docs/use-cases/usage-accounting)
    cost = chunk_usage.get("cost")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
        raise TypeError(f"usage.cost is {type(cost).__name__}")
    return Usage(
        tokens(chunk_usage.get("prompt_tokens")) or 0,
        tokens(chunk_usage.get("completion_tokens")) or 0,
        cached,
        tokens(details.get("cache_write_tokens")),
        None if cost is None else float(cost),
    )


def _text_of(content: Any) -> tuple[str, str]:
    """(text, reasoning) of a `delta.content`: a string, or a list of parts (Mistral, others)."""
    if content is None or isinstance(content, str):
        return content or "", ""
    if not isinstance(content, list):
        raise TypeError(f"delta.content is a {type(content).__name__}")
    text, reasoning = [], []
    for part in content:
        if not isinstance(part, dict):
            raise TypeError(f"a delta.content part is a {type(part).__name__}")
        if part.get("type") == "thinking":  # Mistral's reasoning models
            inner = part.get("thinking")
            for piece in inner if isinstance(inner, list) else [inner]:
                if isinstance(piece, dict) and isinstance(piece.get("text"), str):
                    reasoning.append(piece["text"])
                elif isinstance(piece, str):
                    reasoning.append(piece)
        elif isinstance(part.get("text"), str):
            text.append(part["text"])
    return "".join(text), "".join(reasoning)


def _merge_details(details: list[dict[str, Any]], pieces: Any) -> None:
    # OpenRouter streams reasoning_details in pieces: those of one index are one detail
    for piece in pieces if isinstance(pieces, list) else ():
        if not isinstance(piece, dict):
            continue
        index = piece.get("index")
        same = next((d for d in details if index is not None and d.get("index") == index), None)
        if same is None:
            details.append(dict(piece))
            continue
        for key, value in piece.items():
            if key in ("text", "summary", "data") and isinstance(value, str):
                same[key] = str(same.get(key) or "") + value
            elif value is not None:
                same[key] = value


class _Chunks:
    """The state machine over one response's chunks: each `feed` returns the records it makes."""

    def __init__(self, ids: UniqueIds) -> None:
        self.kind: str | None = None  # the open block: "text" or "reasoning"
        self.parts: list[str] = []
        self.ids = ids
        self.by_index: dict[Any, PendingCall] = {}
        self.sent_ids: dict[Any, str] = {}  # by index: the id the server gave (before `ids`)
        self.pending: list[PendingCall] = []  # calls not yet done, in the model's order
        self.called = 0
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.details: list[dict[str, Any]] = []
        self.signatures: dict[str, str] = {}
        self._step = secrets.token_hex(4)  # ids for id-less calls: unique per response

    def _switch(self, kind: str | None, out: list[Record]) -> None:
        if self.kind != kind:
            self.close(out)
            self.kind = kind
            self.parts = []

    def close(self, out: list[Record]) -> None:
        """Finish the open text or reasoning block."""
        if self.kind:
            text = "".join(self.parts)
            out.append(TextDone(text) if self.kind == "text" else ReasoningDone(text))
            self.kind = None

    def _add(self, kind: str, text: str, out: list[Record]) -> None:
        self._switch(kind, out)
        self.parts.append(text)
        out.append(TextDelta(text) if kind == "text" else ReasoningDelta(text))

    def feed(self, chunk: dict[str, Any]) -> list[Record]:
        """The records one chunk makes."""
        out: list[Record] = []
        choices = chunk.get("choices")
        if choices:
            choice = choices[0]
            if delta := choice.get("delta"):
                self._delta(delta, out)
            if reason := choice.get("finish_reason"):
                self.finish = reason
                self.end_calls(out)
        if counts := chunk.get("usage"):
            self.usage = counts
        elif isinstance(groq := chunk.get("x_groq"), dict) and groq.get("usage"):
            self.usage = groq["usage"]  # Groq puts the usage of a stream here
        return out

    def _delta(self, delta: dict[str, Any], out: list[Record]) -> None:
        _merge_details(self.details, delta.get("reasoning_details"))
        # DeepSeek, vLLM and llama.cpp say reasoning_content; Ollama and OpenRouter, reasoning
        thought = delta.get("reasoning_content") or delta.get("reasoning")
        if thought:
            self._add("reasoning", string(thought), out)
        text, inner = _text_of(delta.get("content"))
        if inner:
            self._add("reasoning", inner, out)
        if text:
            self._add("text", text, out)
        if tool_calls := delta.get("tool_calls"):
            self._switch(None, out)
            for piece in tool_calls:
                self._call_piece(piece, out)

    def _call_piece(self, piece: dict[str, Any], out: list[Record]) -> None:
        index = piece.get("index", 0)
        call = self.by_index.get(index)
        call_id = piece.get("id")
        function = piece.get("function") or {}
        # a new id at a known index is a new call (servers without index)
        if call is None or (call_id and call_id != self.sent_ids.get(index)):
            self.called += 1
            call = PendingCall(
                self.ids(string(call_id or f"call_{self._step}_{self.called}")),
                string(function.get("name") or ""),
            )
            self.by_index[index] = call
            self.sent_ids[index] = call_id or ""
            self.pending.append(call)
        google = (piece.get("extra_content") or {}).get("google") or {}
        if signature := google.get("thought_signature"):
            self.signatures[call.call_id] = signature
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some servers send the object itself
            arguments = json.dumps(arguments)
        if arguments:
            out.append(call.delta(string(arguments)))

    def end_calls(self, out: list[Record]) -> None:
        """Finish the open block, the kept server data and every pending call."""
        self.close(out)
        if self.details:
            kept = ProviderData("reasoning_details", {"reasoning_details": self.details})
            out.append(ProviderDataDone(kept))
        if self.signatures:
            kept = ProviderData("call_signatures", {"thought_signatures": self.signatures})
            out.append(ProviderDataDone(kept))
        self.details, self.signatures = [], {}
        out.extend(call.done() for call in self.pending)
        self.pending = []


class OpenAIChatProvider(HttpProvider):
    """Streams from an OpenAI-compatible Chat Completions API (`POST /chat/completions`)."""

    Compat = Compat

    def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The records of one streamed response; with `tool_call_fallback`, calls the model
        wrote as text become calls. Without it, a reply that is found to hold such calls
        turns it on for the rest of the session (`textstream.watch`)."""
        records = self._records(request, exchange)
        if self.compat.tool_call_fallback and request.tools:
            return recover(records, request.tools)
        if request.tools:
            return watch(records, request.tools, self._fallback_on)
        return records

    def _fallback_on(self) -> None:
        self.compat = msgspec.structs.replace(self.compat, tool_call_fallback=True)

    async def _records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        with malformed(self.name):
            state = _Chunks(UniqueIds(request))
            done = False
            body = request_body(request, self.compat, self.cache)
            events = self.events("/chat/completions", body, exchange)
            async with aclosing(events):
                async for _, raw in events:
                    if raw == "[DONE]":
                        done = True
                        continue
                    chunk = decode(self.name, raw)
                    if error := chunk.get("error"):
                        raise stream_error(self.name, error)
                    for record in state.feed(chunk):
                        yield record
            # without [DONE], only a clean end after both the finish reason and the usage is whole
            if not done and (state.finish is None or state.usage is None):
                raise incomplete(self.name)
            tail: list[Record] = []
            state.end_calls(tail)
            for record in tail:
                yield record
            usage = _usage(state.usage)  # a cost the server reports is the cost
            yield TokenUsageDone(usage if usage.cost is not None else request.model.price(usage))
            normalized = _FINISH_REASONS.get(state.finish or "", "other")
            if (
                normalized == "stop" and state.called
            ):  # Ollama and others say stop after calling tools
                normalized = "tool_calls"
            yield FinishReasonDone(normalized, state.finish)
