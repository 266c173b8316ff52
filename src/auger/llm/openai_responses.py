"""The OpenAI Responses wire format, streamed: a pure request builder and one state machine."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

from auger.llm import server_tools
from auger.llm.errors import ProviderError
from auger.llm.formats import ApiName
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ProviderData,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserPart,
)
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
    ToolCallDelta,
)
from auger.llm.replay import Replay, Sealer
from auger.llm.sendable import data_url, tool_arguments
from auger.llm.usage import Usage, tokens
from auger.llm.wire import (
    BearerCompat,
    CacheSettings,
    HttpProvider,
    PendingCall,
    UniqueIds,
    decode,
    incomplete,
    malformed,
    stream_error,
    string,
)

API: ApiName = "responses"
_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _input_part(part: UserPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "input_image", "image_url": data_url(part)}
    return {"type": "input_text", "text": part.text}


def _tool_output(message: ToolResultMessage) -> str | list[dict[str, Any]]:
    if any(isinstance(p, ImagePart) for p in message.content):
        return [_input_part(p) for p in message.content]
    return message.text


def _reasoning_item(part: ProviderData, summary: str) -> dict[str, Any]:
    item = dict(part.data)
    item["type"] = "reasoning"
    item["summary"] = [{"type": "summary_text", "text": summary}] if summary else []
    return item


def _assistant_items(index: int, message: AssistantMessage, replay: Replay) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    # An assistant message's `phase` ("commentary" or "final_answer") must go back as it came
    # (https://platform.openai.com/docs/api-reference/responses/object): kept before its text
    phase: str | None = None
    summary = ""  # the reasoning text encrypted reasoning after it takes back
    for part in message.content:
        if isinstance(part, ReasoningPart):
            summary = part.text
            continue
        if isinstance(part, TextPart):
            if part.text:
                item: dict[str, Any] = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": part.text}],
                }
                if phase:
                    item["phase"] = phase
                items.append(item)
        elif isinstance(part, ToolCall):
            items.append(
                {
                    "type": "function_call",
                    "call_id": part.call_id,
                    "name": part.name,
                    "arguments": tool_arguments(part.arguments),
                }
            )
        elif replay.sendable(index, part):
            if part.kind == "phase":
                phase = str(part.data["phase"])
            elif part.kind == "encrypted_reasoning":
                items.append(_reasoning_item(part, summary))
            elif part.kind == "web_search_call":  # a server-side search, kept as it came
                items.append(dict(part.data))
        summary = ""
    return items


def input_items(request: Request) -> list[dict[str, Any]]:
    """The request's messages as Responses input items."""
    replay = Replay(request, API)
    items: list[dict[str, Any]] = []
    for index, message in enumerate(request.messages):
        if isinstance(message, AssistantMessage):
            items.extend(_assistant_items(index, message, replay))
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


def cache_key(request: Request) -> str:
    """The request's `prompt_cache_key`: its session's, else one derived from how the
    conversation began (stable from step to step, so requests of one session share a cache)."""
    if request.cache_key:
        return request.cache_key
    first = request.messages[0].to_dict() if request.messages else {}
    seed = json.dumps([request.model.name, first.get("content")], sort_keys=True)
    return "auger-" + hashlib.sha256(seed.encode()).hexdigest()[:24]


def request_body(
    request: Request, *, summary: bool = True, cache: CacheSettings | None = None
) -> dict[str, Any]:
    """The JSON body of a streamed, stateless Responses call.

    A reasoning model always gets its encrypted reasoning back (`store: false` keeps nothing
    server-side), so tool steps keep their reasoning with or without `--reasoning`.
    """
    body: dict[str, Any] = {
        "model": request.model.name,
        "input": input_items(request),
        "max_output_tokens": request.max_tokens or request.model.max_output,
        "store": False,
        "stream": True,
        "prompt_cache_key": cache_key(request),
    }
    if cache is not None and cache.retention:  # "24h" keeps prefixes cached up to a day
        body["prompt_cache_retention"] = cache.retention
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
    if served := server_tools.responses_tools(request):
        body["tools"] = [t for t in body.get("tools", []) if t["name"] != "web_search"] + served
        body["include"] = ["web_search_call.action.sources"]
    if request.model.reasoning or request.reasoning:
        reasoning: dict[str, Any] = {"effort": request.reasoning} if request.reasoning else {}
        if summary:
            reasoning["summary"] = "auto"
        if reasoning:
            body["reasoning"] = reasoning
        body["include"] = [*body.get("include", []), "reasoning.encrypted_content"]
    return body


def _about_summary(error: ProviderError) -> bool:
    # e.g. "Your organization must be verified to generate reasoning summaries"
    return error.kind == "bad_request" and "summar" in error.message.lower()


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
        tokens(usage.get("input_tokens")) or 0,
        tokens(usage.get("output_tokens")) or 0,
        tokens(details.get("cached_tokens")),
        tokens(details.get("cache_write_tokens")),
    )


class OpenAIResponsesProvider(HttpProvider):
    """Streams responses from the OpenAI Responses API (`POST /responses`)."""

    Compat = BearerCompat
    _summaries = True  # until the server says this account may not have reasoning summaries

    async def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The records of one streamed response; a 400 about reasoning summaries is sent again
        without asking for them (and they are not asked for again)."""
        with malformed(self.name):
            try:
                async for record in self._stream(request, exchange, self._summaries):
                    yield record
            except ProviderError as err:
                if not (self._summaries and _about_summary(err)):
                    raise
                self._summaries = False
                async for record in self._stream(request, exchange, False):
                    yield record

    async def _stream(
        self, request: Request, exchange: Exchange, summary: bool
    ) -> AsyncIterator[Record]:
        seal = Sealer(request)
        ids = UniqueIds(request)
        calls: dict[int, PendingCall] = {}  # open function calls by output index
        orphans: dict[int, list[str]] = {}  # argument pieces of calls never announced
        done_calls: set[int] = set()
        called = False
        searches: list[dict[str, Any]] = []  # web_search_call items (each search is billed)
        reasoning: list[str] = []
        final: dict[str, Any] | None = None
        ending = ""  # the terminal event's type
        body = request_body(request, summary=summary, cache=self.cache)
        events = self.events("/responses", body, exchange)
        async with aclosing(events):
            async for _, raw in events:
                data = decode(self.name, raw)
                etype = data["type"]
                if etype == "response.output_text.delta" or etype == "response.refusal.delta":
                    yield TextDelta(string(data["delta"]))
                elif etype == "response.function_call_arguments.delta":
                    if piece := string(data["delta"]):
                        if call := calls.get(data["output_index"]):
                            yield call.delta(piece)
                        else:  # no output_item.added (some servers): its id comes at the end
                            orphans.setdefault(data["output_index"], []).append(piece)
                elif (
                    etype == "response.reasoning_summary_text.delta"
                    or etype == "response.reasoning_text.delta"
                ):
                    text = string(data["delta"])
                    reasoning.append(text)
                    yield ReasoningDelta(text)
                elif etype == "response.output_text.annotation.added":
                    for record in server_tools.responses_annotation(data.get("annotation")):
                        yield record
                elif etype == "response.output_text.done":
                    yield TextDone(string(data["text"]))
                elif etype == "response.refusal.done":
                    yield TextDone(string(data["refusal"]))
                elif etype == "response.reasoning_summary_part.added":
                    if reasoning:  # summary parts read as paragraphs of one reasoning block
                        reasoning.append("\n\n")
                        yield ReasoningDelta("\n\n")
                elif etype == "response.function_call_arguments.done":
                    if call := calls.pop(data["output_index"], None):
                        done_calls.add(data["output_index"])
                        if rest := _rest(call, data.get("arguments")):
                            yield rest
                        yield call.done()
                elif etype == "response.output_item.added":
                    item = data["item"]
                    if item["type"] == "function_call":
                        calls[data["output_index"]] = PendingCall(
                            ids(string(item["call_id"])), string(item["name"])
                        )
                        called = True
                    elif item["type"] == "reasoning":
                        reasoning = []
                    elif item["type"] == "message" and (phase := item.get("phase")):
                        yield ProviderDataDone(ProviderData("phase", {"phase": string(phase)}))
                elif etype == "response.output_item.done":
                    item = data["item"]
                    if item["type"] == "reasoning":
                        text = "".join(reasoning)
                        encrypted = item.get("encrypted_content")
                        if text or encrypted:
                            yield ReasoningDone(text)
                        if encrypted:  # what it takes to send it back, nothing stored server-side
                            kept = {"id": item.get("id"), "encrypted_content": encrypted}
                            yield seal("encrypted_reasoning", kept)
                    elif item["type"] == "web_search_call":
                        searches.append(item)
                        for record in server_tools.responses_item(item):
                            yield record
                        yield seal("web_search_call", server_tools.responses_kept(item))
                    elif item["type"] == "function_call":
                        call = calls.pop(data["output_index"], None)
                        if call is None and data["output_index"] not in done_calls:
                            call = PendingCall(ids(string(item["call_id"])), string(item["name"]))
                            if pieces := orphans.pop(data["output_index"], None):
                                yield call.delta("".join(pieces))
                            called = True
                        if call is not None:
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
        usage = request.model.price(_usage(final))
        searched = server_tools.search_cost(
            request.model, server_tools.responses_searches(searches)
        )
        yield TokenUsageDone(usage + searched)
        if ending == "response.incomplete":
            reason = (final.get("incomplete_details") or {}).get("reason")
            yield FinishReasonDone(_INCOMPLETE_REASONS.get(reason or "", "other"), reason)
        else:
            yield FinishReasonDone("tool_calls" if called else "stop", "completed")
