"""The OpenAI Chat Completions wire format, streamed: every OpenAI-compatible server speaks it.

A pure request builder (`request_body`) and one state machine (`_Chunks`). What servers add
beyond OpenAI's shape is read and, where the server needs it, sent back: DeepSeek's and
llama.cpp's `reasoning_content`, OpenRouter's `reasoning_details`, Gemini's thought signatures
(`extra_content.google.thought_signature` on a tool call). Those are kept in the message as a
reasoning part whose signature is a JSON object (`_Extras`), sent back to the same provider only.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, Literal

import msgspec

from auger.llm.formats import ApiName
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ReasoningPart,
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
from auger.llm.sendable import CallIds, IdStyle, data_url, tool_arguments
from auger.llm.textstream import recover, watch
from auger.llm.usage import Usage
from auger.llm.wire import (
    BearerCompat,
    HttpProvider,
    PendingCall,
    decode,
    incomplete,
    malformed,
    stream_error,
    string,
)

API: ApiName = "chat-completions"
_EXTRAS = '{"chat":'  # how a signature of this format begins

_FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
}


class Compat(BearerCompat, frozen=True, forbid_unknown_fields=True):
    """What a server needs beyond OpenAI's defaults (`"compat"` in a provider's settings)."""

    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    reasoning_content: bool = False  # send reasoning back as `reasoning_content` (DeepSeek)
    tool_call_ids: IdStyle = "any"  # "mistral": nine letters and digits
    tool_call_fallback: bool = False  # calls written as text become calls (`auger.llm.textcalls`)
    small_model_guidance: bool | None = None  # None: with the fallback (`engine.prompt`)


def _content_part(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    return {"type": "text", "text": part.text}


def _user_content(message: UserMessage) -> str | list[dict[str, Any]]:
    # plain text as a string: some local servers accept nothing else
    if any(isinstance(p, ImagePart) for p in message.content):
        return [_content_part(p) for p in message.content]
    return message.text


def _extras(message: AssistantMessage) -> dict[str, Any]:
    """The server data kept on `message`: `reasoning_details`, `thought_signatures`."""
    out: dict[str, Any] = {}
    for part in message.content:
        signature = part.signature if isinstance(part, ReasoningPart) else None
        if signature and signature.startswith(_EXTRAS):
            try:
                out |= json.loads(signature)["chat"]
            except (ValueError, KeyError, TypeError):
                continue
    return out


def _assistant(
    message: AssistantMessage, request: Request, compat: Compat, ids: CallIds
) -> dict[str, Any] | None:
    calls = message.tool_calls
    text = message.text
    ours = message.api == API and message.provider == request.model.provider
    if not text and not calls:  # a turn of reasoning alone is not a message servers accept
        return None
    reasoning = "".join(p.text for p in message.content if isinstance(p, ReasoningPart))
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    extras = _extras(message) if ours else {}
    if ours and compat.reasoning_content and reasoning:
        out["reasoning_content"] = reasoning
    if details := extras.get("reasoning_details"):
        out["reasoning_details"] = details
    if calls:
        signatures = extras.get("thought_signatures") or {}
        out["tool_calls"] = []
        for c in calls:
            call: dict[str, Any] = {
                "id": ids(c.call_id),
                "type": "function",
                "function": {"name": c.name, "arguments": tool_arguments(c.arguments)},
            }
            if sig := signatures.get(c.call_id):
                call["extra_content"] = {"google": {"thought_signature": sig}}
            out["tool_calls"].append(call)
    return out


def chat_messages(request: Request, compat: Compat | None = None) -> list[dict[str, Any]]:
    """The request's messages as chat messages, the system prompt first."""
    compat = compat or Compat()
    system = request.system
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    # tool messages carry text only: their images follow, as a user turn
    images: list[ImagePart] = []
    ids = CallIds(compat.tool_call_ids)
    for message in request.messages:
        if isinstance(message, ToolResultMessage):
            out.append(
                {"role": "tool", "tool_call_id": ids(message.call_id), "content": message.text}
            )
            images.extend(p for p in message.content if isinstance(p, ImagePart))
            continue
        if images:
            out.append({"role": "user", "content": [_content_part(p) for p in images]})
            images = []
        if isinstance(message, AssistantMessage):
            if turn := _assistant(message, request, compat, ids):
                out.append(turn)
        else:
            out.append({"role": "user", "content": _user_content(message)})
    if images:
        out.append({"role": "user", "content": [_content_part(p) for p in images]})
    return out


def request_body(request: Request, compat: Compat | None = None) -> dict[str, Any]:
    """The JSON body of a streamed chat completion."""
    compat = compat or Compat()
    body: dict[str, Any] = {
        "model": request.model.name,
        "messages": chat_messages(request, compat),
        compat.max_tokens_field: request.max_tokens or request.model.max_output,
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


def _usage(chunk_usage: dict[str, Any] | None) -> Usage:
    if not chunk_usage:
        return Usage()
    details = chunk_usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens")
    if cached is None:  # DeepSeek counts cache hits its own way
        cached = chunk_usage.get("prompt_cache_hit_tokens")
    return Usage(
        chunk_usage.get("prompt_tokens") or 0, chunk_usage.get("completion_tokens") or 0, cached
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

    def __init__(self) -> None:
        self.kind: str | None = None  # the open block: "text" or "reasoning"
        self.parts: list[str] = []
        self.by_index: dict[Any, PendingCall] = {}
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
        if call is None or (call_id and call_id != call.call_id):
            self.called += 1
            call = PendingCall(
                string(call_id or f"call_{self._step}_{self.called}"),
                string(function.get("name") or ""),
            )
            self.by_index[index] = call
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
        extras: dict[str, Any] = {}
        if self.details:
            extras["reasoning_details"] = self.details
        if self.signatures:
            extras["thought_signatures"] = self.signatures
        if extras:
            out.append(ReasoningDone("", msgspec.json.encode({"chat": extras}).decode()))
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
            state = _Chunks()
            done = False
            events = self.events("/chat/completions", request_body(request, self.compat), exchange)
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
            yield TokenUsageDone(request.model.price(_usage(state.usage)))
            normalized = _FINISH_REASONS.get(state.finish or "", "other")
            if (
                normalized == "stop" and state.called
            ):  # Ollama and others say stop after calling tools
                normalized = "tool_calls"
            yield FinishReasonDone(normalized, state.finish)
