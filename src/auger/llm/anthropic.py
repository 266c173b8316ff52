"""The Anthropic Messages wire format, streamed: a pure request builder and one state machine."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any, ClassVar

import msgspec

from auger.llm import server_tools
from auger.llm.formats import ApiName
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
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
from auger.llm.replay import Replay, Sealer
from auger.llm.sendable import CallIds, tool_input
from auger.llm.usage import Usage
from auger.llm.wire import (
    HttpProvider,
    PendingCall,
    decode,
    incomplete,
    malformed,
    stream_error,
    string,
)

API: ApiName = "messages"
API_VERSION = "2023-06-01"
THINKING_BUDGETS = {"low": 4096, "medium": 10_000, "high": 32_000}
_MIN_BUDGET = 1024  # the API's smallest thinking budget
_EFFORTS = ("low", "medium", "high")  # `output_config.effort` values every adaptive model takes
_REDACTED = "redacted:"  # marks a kept `redacted_thinking` block's data
_BLOCK = "block:"  # marks a kept server-tool block (`server_tool_use`, `*_tool_result`)
_MAX_PAUSES = 8  # `pause_turn` continuations of one response

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


def _tool_result(message: ToolResultMessage, ids: CallIds) -> dict[str, Any]:
    if any(isinstance(p, ImagePart) for p in message.content):
        content: str | list[dict[str, Any]] = [
            _user_block(p) for p in message.content if isinstance(p, ImagePart) or p.text
        ]
    else:
        content = message.text
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": ids(message.call_id),
        "content": content,
    }
    if message.is_error:
        block["is_error"] = True
    return block


def _signed_block(part: ReasoningPart, signature: str) -> dict[str, Any]:
    if signature.startswith(_REDACTED):
        return {"type": "redacted_thinking", "data": signature[len(_REDACTED) :]}
    if signature.startswith(_BLOCK):
        block: dict[str, Any] = json.loads(signature[len(_BLOCK) :])
        return block
    return {"type": "thinking", "thinking": part.text, "signature": signature}


def _assistant_blocks(
    index: int, message: AssistantMessage, replay: Replay, ids: CallIds
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            if part.text:  # the API rejects empty text blocks
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": ids(part.call_id),
                    "name": part.name,
                    "input": tool_input(part.arguments),
                }
            )
        elif signature := replay.signature(index, part):
            blocks.append(_signed_block(part, signature))
    return blocks


def messages_body(request: Request, api: str = API) -> list[dict[str, Any]]:
    """The request's messages as Messages API turns, the last user turn a cache breakpoint;
    `api` is the format whose signatures may go back (a cloud's Messages has its own)."""
    replay = Replay(request, api)
    ids = CallIds("anthropic")  # ids from other providers may not fit `[a-zA-Z0-9_-]{1,64}`
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the user turn collecting consecutive tool results
    for index, message in enumerate(request.messages):
        if isinstance(message, ToolResultMessage):
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(_tool_result(message, ids))
            continue
        results = None
        if isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(index, message, replay, ids)
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


def _continues_unthought(messages: list[dict[str, Any]]) -> bool:
    # with thinking on, an assistant turn that called tools must open with its thinking; one whose
    # thinking could not be kept is continued without thinking rather than rejected
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return False
    last = messages[-2]
    first = last["content"][0] if last["role"] == "assistant" and last["content"] else None
    calls = any(b["type"] == "tool_use" for b in last["content"]) if first else False
    return calls and first is not None and "thinking" not in first["type"]


def _thinking(request: Request, body: dict[str, Any]) -> None:
    effort = request.reasoning or ""
    if request.model.thinking == "adaptive":
        body["thinking"] = {"type": "adaptive"}
        body["output_config"] = {"effort": effort if effort in _EFFORTS else "medium"}
        return
    max_tokens = body["max_tokens"]
    budget = THINKING_BUDGETS.get(effort, THINKING_BUDGETS["medium"])
    if budget >= max_tokens:  # the budget must leave room for the answer
        budget = max(max_tokens - _MIN_BUDGET, _MIN_BUDGET)
        body["max_tokens"] = max(max_tokens, budget + _MIN_BUDGET)
    body["thinking"] = {"type": "enabled", "budget_tokens": budget}


def request_body(request: Request, api: str = API) -> dict[str, Any]:
    """The JSON body of a streamed Messages call."""
    body: dict[str, Any] = {
        "model": request.model.name,
        "max_tokens": request.max_tokens or request.model.max_output,
        "messages": messages_body(request, api),
        "stream": True,
    }
    if request.system:
        body["system"] = [
            {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
        ]
    served = server_tools.anthropic_tools(request)
    if request.tools or served:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
            if not any(s["name"] == t.name for s in served)  # the provider's own wins
        ] + served
    if request.reasoning and not _continues_unthought(body["messages"]):
        _thinking(request, body)
    return body


def _merge_usage(usage: dict[str, Any], update: dict[str, Any] | None) -> None:
    # message_delta repeats the counts, some as null; the latest known value wins
    if update:
        usage.update((k, v) for k, v in update.items() if v is not None)


def _usage(usage: dict[str, Any]) -> Usage:
    cache_read = usage.get("cache_read_input_tokens")
    cache_write = usage.get("cache_creation_input_tokens")
    total_input = usage.get("input_tokens", 0) + (cache_read or 0) + (cache_write or 0)
    return Usage(total_input, usage.get("output_tokens", 0), cache_read, cache_write)


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
        return [ReasoningDone("".join(parts), seal(signature) if signature else None)]
    if kind == "redacted_thinking":
        return [ReasoningDone("", seal(_REDACTED + str(block.get("data", ""))))]
    if kind is not None:  # server tools and their results: kept so history stays whole
        raw = _raw(kind, block, parts, signature)
        return [
            *server_tools.anthropic_block(raw),
            ReasoningDone("", seal(_BLOCK + json.dumps(raw))),
        ]
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
    """Streams responses from the Anthropic Messages API (`POST /v1/messages`)."""

    api: ClassVar[str] = API  # a cloud serving Messages names its own

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`x-api-key` (when there is one) and the API version."""
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    async def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The records of one response; a `pause_turn` is continued until the turn ends.

        One loop reads every event (no inner generator: each hop costs every delta)."""
        with malformed(self.name):
            body = request_body(request, self.api)
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
                                call = PendingCall(string(block["id"]), string(block["name"]))
                            elif kind == "thinking":
                                signature = block.get("signature") or ""
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
