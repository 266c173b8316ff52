"""The native Gemini API (`streamGenerateContent?alt=sse`): a pure request builder and one
state machine over its streamed `GenerateContentResponse` chunks.

Thought signatures (https://ai.google.dev/gemini-api/docs/thought-signatures) ride on the part
they were issued with — a `functionCall` (the first of parallel calls), a text part, or a
thought. Each is kept as a `ProviderData` part sealed to its request prefix: a
`part_signature` just before the part it belongs to, or a `thought_signature` just after the
thought (a reasoning part) — and put back on that very part.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, ClassVar

import msgspec

from auger.llm.formats import ApiName
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ProviderData,
    ProviderDataKind,
    ReasoningPart,
    TextPart,
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
    ToolCallDelta,
    ToolCallDone,
)
from auger.llm.replay import Replay, Sealer
from auger.llm.sendable import tool_input
from auger.llm.usage import Usage
from auger.llm.wire import HttpProvider, decode, incomplete, malformed, stream_error, string

API: ApiName = "gemini"
THINKING_BUDGETS = {"low": 4096, "medium": 10_000, "high": 32_000}  # Gemini 2.5's budgets
# Google's sentinel for a first call without its signature (another model's, or dropped with a
# prefix that changed): Gemini 3 skips its check instead of refusing the request.
_UNSIGNED = "skip_thought_signature_validator"
_OWN_ID = "auger_"  # a call id made here: the server sent none, so none goes back
_LEVELS = {"low": "low", "medium": "high", "high": "high"}  # Gemini 3 Pro takes low and high
_encode = msgspec.json.encode

# https://ai.google.dev/api/generate-content#FinishReason
_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
}


def _user_part(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"inlineData": {"mimeType": part.media_type, "data": part.data}}
    return {"text": part.text}


def _function_response(message: ToolResultMessage) -> list[dict[str, Any]]:
    key = "error" if message.is_error else "output"  # the keys the API reference names
    response: dict[str, Any] = {"name": message.name, "response": {key: message.text}}
    if not message.call_id.startswith(_OWN_ID):
        response["id"] = message.call_id
    images = [_user_part(p) for p in message.content if isinstance(p, ImagePart)]
    return [{"functionResponse": response}, *images]


def _model_parts(index: int, message: AssistantMessage, replay: Replay) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    pending: str | None = None  # a signature waiting for the part it was issued with
    thought = ""  # the reasoning a thought signature after it signs
    ours = replay.same_origin(message)
    for part in message.content:
        if isinstance(part, ReasoningPart):
            thought = part.text
            continue
        if isinstance(part, ProviderData):
            if part.kind == "thought_signature" and replay.sendable(index, part):
                sig = part.data["signature"]
                parts.append({"text": thought, "thought": True, "thoughtSignature": sig})
            elif part.kind == "part_signature" and replay.sendable(index, part):
                if pending is not None:
                    parts.append({"text": "", "thoughtSignature": pending})
                pending = str(part.data["signature"])
            thought = ""
            continue
        thought = ""
        if isinstance(part, TextPart):
            out: dict[str, Any] = {"text": part.text}
        else:
            call: dict[str, Any] = {"name": part.name, "args": tool_input(part.arguments)}
            if ours and not part.call_id.startswith(_OWN_ID):
                call["id"] = part.call_id
            out = {"functionCall": call}
        if pending is not None:
            out["thoughtSignature"] = pending
            pending = None
        elif "functionCall" in out and not any("functionCall" in p for p in parts):
            out["thoughtSignature"] = _UNSIGNED  # a call whose signature is gone, or never was
        if "text" not in out or out["text"] or "thoughtSignature" in out:
            parts.append(out)
    if pending is not None:
        parts.append({"text": "", "thoughtSignature": pending})
    return parts


def contents(request: Request, api: str = API) -> list[dict[str, Any]]:
    """The request's messages as `contents`, consecutive turns of one role merged."""
    replay = Replay(request, api)
    out: list[dict[str, Any]] = []
    for index, message in enumerate(request.messages):
        if isinstance(message, ToolResultMessage):
            role, parts = "user", _function_response(message)
        elif isinstance(message, AssistantMessage):
            role, parts = "model", _model_parts(index, message, replay)
        else:
            role, parts = "user", [_user_part(p) for p in message.content]
        if not parts:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return out


def _thinking(request: Request) -> dict[str, Any]:
    effort = request.reasoning or "medium"
    if request.model.thinking == "budget":
        budget = THINKING_BUDGETS.get(effort, THINKING_BUDGETS["medium"])
        return {"thinkingBudget": budget, "includeThoughts": True}
    return {"thinkingLevel": _LEVELS.get(effort, "high"), "includeThoughts": True}


def request_body(request: Request, api: str = API) -> dict[str, Any]:
    """The JSON body of a `streamGenerateContent` call."""
    config: dict[str, Any] = {"maxOutputTokens": request.max_tokens or request.model.max_output}
    if request.reasoning:
        config["thinkingConfig"] = _thinking(request)
    body: dict[str, Any] = {"contents": contents(request, api), "generationConfig": config}
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    if request.tools:
        declarations = [
            {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
            for t in request.tools
        ]
        body["tools"] = [{"functionDeclarations": declarations}]
    return body


def usage_of(metadata: dict[str, Any]) -> Usage:
    """`usageMetadata` as usage: the prompt count includes cached tokens; thoughts are output."""
    prompt = int(metadata.get("promptTokenCount") or 0)
    prompt += int(metadata.get("toolUsePromptTokenCount") or 0)
    output = int(metadata.get("candidatesTokenCount") or 0)
    output += int(metadata.get("thoughtsTokenCount") or 0)
    cached = metadata.get("cachedContentTokenCount")
    return Usage(prompt, output, None if cached is None else int(cached))


class _Blocks:
    """The open text or thought block of a response and the signature waiting to be kept."""

    def __init__(self, seal: Sealer) -> None:
        self.seal = seal
        self.kind: str | None = None  # "text" or "thought"
        self.parts: list[str] = []
        self.signature: str | None = None  # issued on the open block

    def close(self) -> list[Record]:
        text, kind, signature = "".join(self.parts), self.kind, self.signature
        self.kind, self.parts, self.signature = None, [], None
        if kind == "thought":
            done = ReasoningDone(text)
            return [done, self.signed("thought_signature", signature)] if signature else [done]
        out: list[Record] = [self.signed("part_signature", signature)] if signature else []
        return [*out, TextDone(text)] if kind == "text" else out

    def signed(self, kind: ProviderDataKind, signature: str) -> Record:
        """The record of a thought signature, sealed to the request prefix."""
        return self.seal(kind, {"signature": signature})

    def piece(self, kind: str, text: str, signature: str | None) -> list[Record]:
        out = self.close() if kind != self.kind or (signature and self.signature) else []
        self.kind = kind
        if text:
            self.parts.append(text)
            out.append(TextDelta(text) if kind == "text" else ReasoningDelta(text))
        self.signature = signature or self.signature
        return out


class GeminiProvider(HttpProvider):
    """Streams responses from the Gemini API (`POST /models/M:streamGenerateContent`)."""

    api: ClassVar[str] = API

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`x-goog-api-key`, when there is a key."""
        return {"x-goog-api-key": api_key} if api_key else {}

    def path(self, model: str) -> str:
        """Where a model's stream is asked for, below the base URL."""
        return f"/models/{model}:streamGenerateContent?alt=sse"

    async def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The records of one response."""
        with malformed(self.name):
            body = request_body(request, self.api)
            blocks = _Blocks(Sealer(request))
            metadata: dict[str, Any] = {}
            finish: str | None = None
            calls = 0
            events = self.events(self.path(request.model.name), body, exchange)
            async with aclosing(events):
                async for _, raw in events:
                    data = decode(self.name, raw)
                    if "error" in data:
                        raise stream_error(self.name, data["error"] or {})
                    metadata = data.get("usageMetadata") or metadata
                    blocked = (data.get("promptFeedback") or {}).get("blockReason")
                    if blocked:
                        finish = f"prompt blocked: {blocked}"
                    candidates = data.get("candidates") or [{}]
                    candidate = candidates[0]
                    for part in (candidate.get("content") or {}).get("parts") or []:
                        signature = part.get("thoughtSignature")
                        if "functionCall" in part:
                            for record in blocks.close():
                                yield record
                            if signature:
                                yield blocks.signed("part_signature", string(signature))
                            call = part["functionCall"]
                            calls += 1
                            call_id = string(call.get("id") or _OWN_ID + secrets.token_hex(8))
                            name = string(call["name"])
                            arguments = _encode(call.get("args") or {}).decode()
                            yield ToolCallDelta(call_id, name, arguments)
                            yield ToolCallDone(call_id, name, arguments)
                        elif "text" in part:
                            kind = "thought" if part.get("thought") else "text"
                            for record in blocks.piece(kind, string(part["text"]), signature):
                                yield record
                        elif signature:  # a signature alone, kept for the next part
                            for record in blocks.piece(blocks.kind or "text", "", signature):
                                yield record
                    finish = candidate.get("finishReason") or finish
            if finish is None:
                raise incomplete(self.name)
            for record in blocks.close():
                yield record
            yield TokenUsageDone(request.model.price(usage_of(metadata)))
            yield FinishReasonDone(_finish(finish, calls), finish)


def _finish(raw: str, calls: int) -> str:
    if raw.startswith("prompt blocked"):
        return "content_filter"
    reason = _FINISH.get(raw, "other")
    return "tool_calls" if reason == "stop" and calls else reason
