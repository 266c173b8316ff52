"""The OpenAI Responses wire format, streamed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

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
    ToolCallDelta,
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

_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _input_part(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "input_image", "image_url": data_url(part)}
    return {"type": "input_text", "text": part.text}


def _tool_output(message: ToolResultMessage) -> str | list[dict[str, Any]]:
    if any(isinstance(p, ImagePart) for p in message.content):
        return [_input_part(p) for p in message.content]
    return message.text


def _signature(item: dict[str, Any]) -> str:
    # what it takes to send a reasoning item back when nothing is stored server-side
    return json.dumps({"id": item.get("id"), "encrypted_content": item["encrypted_content"]})


def _reasoning_item(part: ReasoningPart, signature: str) -> dict[str, Any]:
    item: dict[str, Any] = json.loads(signature)
    item["type"] = "reasoning"
    item["summary"] = [{"type": "summary_text", "text": part.text}] if part.text else []
    return item


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            if part.text:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": part.text}],
                    }
                )
        elif isinstance(part, ToolCall):
            items.append(
                {
                    "type": "function_call",
                    "call_id": part.call_id,
                    "name": part.name,
                    "arguments": part.arguments,
                }
            )
        elif part.signature and message.api == "responses":
            items.append(_reasoning_item(part, part.signature))
    return items


def input_items(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """`messages` as Responses input items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message))
        elif isinstance(message, ToolResultMessage):
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.call_id,
                    "output": _tool_output(message),
                }
            )
        else:
            items.append({"role": "user", "content": [_input_part(p) for p in message.content]})
    return items


def request_body(request: Request) -> dict[str, Any]:
    """The JSON body of a streamed, stateless Responses call."""
    body: dict[str, Any] = {
        "model": request.model.name,
        "input": input_items(request.messages),
        "max_output_tokens": request.max_tokens or request.model.max_output,
        "store": False,
        "stream": True,
    }
    if request.system:
        body["instructions"] = request.system
    if request.tools:
        # Responses makes tools strict unless told otherwise, which rejects optional parameters
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in request.tools
        ]
    if request.reasoning:
        body["reasoning"] = {"effort": request.reasoning, "summary": "auto"}
        body["include"] = ["reasoning.encrypted_content"]
    return body


def _rest(call: PendingCall, arguments: str | None) -> ToolCallDelta | None:
    # the final arguments may carry what no delta did (servers that send them only whole)
    if arguments:
        sent = "".join(call.parts)
        if len(arguments) > len(sent) and arguments.startswith(sent):
            return call.delta(arguments[len(sent) :])
    return None


def _usage(response: dict[str, Any]) -> Usage:
    usage = response.get("usage") or {}
    details = usage.get("input_tokens_details") or {}
    return Usage(
        usage.get("input_tokens", 0), usage.get("output_tokens", 0), details.get("cached_tokens")
    )


class OpenAIResponsesProvider(HttpProvider):
    """Streams responses from the OpenAI Responses API (`POST /responses`)."""

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one streamed response."""
        calls: dict[int, PendingCall] = {}  # open function calls by output index
        called = False
        reasoning: list[str] = []
        final: dict[str, Any] | None = None
        ending = ""  # the terminal event's type
        events = self._http.events("/responses", request_body(request), exchange)
        async with aclosing(events):
            async for _, raw in events:
                data = decode(self.name, raw)
                etype = data["type"]
                if etype == "response.output_text.delta" or etype == "response.refusal.delta":
                    yield TextDelta(data["delta"])
                elif etype == "response.function_call_arguments.delta":
                    if piece := data["delta"]:
                        yield calls[data["output_index"]].delta(piece)
                elif (
                    etype == "response.reasoning_summary_text.delta"
                    or etype == "response.reasoning_text.delta"
                ):
                    text = data["delta"]
                    reasoning.append(text)
                    yield ReasoningDelta(text)
                elif etype == "response.output_text.done":
                    yield TextDone(data["text"])
                elif etype == "response.refusal.done":
                    yield TextDone(data["refusal"])
                elif etype == "response.reasoning_summary_part.added":
                    if reasoning:  # summary parts read as paragraphs of one reasoning block
                        reasoning.append("\n\n")
                        yield ReasoningDelta("\n\n")
                elif etype == "response.function_call_arguments.done":
                    if call := calls.pop(data["output_index"], None):
                        if rest := _rest(call, data.get("arguments")):
                            yield rest
                        yield call.done()
                elif etype == "response.output_item.added":
                    item = data["item"]
                    if item["type"] == "function_call":
                        calls[data["output_index"]] = PendingCall(item["call_id"], item["name"])
                        called = True
                    elif item["type"] == "reasoning":
                        reasoning = []
                elif etype == "response.output_item.done":
                    item = data["item"]
                    if item["type"] == "reasoning":
                        text = "".join(reasoning)
                        encrypted = item.get("encrypted_content")
                        if text or encrypted:
                            yield ReasoningDone(text, _signature(item) if encrypted else None)
                    elif item["type"] == "function_call" and (
                        call := calls.pop(data["output_index"], None)
                    ):
                        if rest := _rest(call, item.get("arguments")):
                            yield rest
                        yield call.done()
                elif etype == "response.completed" or etype == "response.incomplete":
                    final = data["response"]
                    ending = etype
                elif etype == "response.failed":
                    raise stream_error(self.name, data["response"].get("error") or {})
                elif etype == "error":
                    raise stream_error(self.name, data.get("error") or data)
        if final is None:
            raise incomplete(self.name)
        yield TokenUsageDone(request.model.price(_usage(final)))
        if ending == "response.incomplete":
            reason = (final.get("incomplete_details") or {}).get("reason")
            yield FinishReasonDone(_INCOMPLETE_REASONS.get(reason or "", "other"), reason)
        else:
            yield FinishReasonDone("tool_calls" if called else "stop", "completed")
