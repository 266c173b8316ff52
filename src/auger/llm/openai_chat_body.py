"""The OpenAI Chat Completions request builder: pure functions from a `Request` to the body.

What servers need beyond OpenAI's shape goes back to them from the provider data kept in a
message (`_extras`): OpenRouter's `reasoning_details`, Gemini's thought signatures; DeepSeek's
`reasoning_content` on every assistant message; OpenRouter's cache breakpoints.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auger.llm.formats import ApiName
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ProviderData,
    ReasoningPart,
    ToolResultMessage,
    UserMessage,
    UserPart,
)
from auger.llm.provider import Request
from auger.llm.sendable import CallIds, IdStyle, data_url, tool_arguments
from auger.llm.wire import BearerCompat, CacheSettings

API: ApiName = "chat-completions"
# DeepSeek's thinking mode refuses a history whose tool-call turns lack `reasoning_content`
# (https://api-docs.deepseek.com/guides/thinking_mode), however the model is reached
_DEEPSEEK = re.compile(r"(^|/)deepseek", re.IGNORECASE)
# models OpenRouter caches only where `cache_control` marks a content part
# (https://openrouter.ai/docs/features/prompt-caching)
_MARKED_CACHE = re.compile(r"^(anthropic|google)/", re.IGNORECASE)


class Compat(BearerCompat, frozen=True, forbid_unknown_fields=True):
    """What a server needs beyond OpenAI's defaults (`"compat"` in a provider's settings)."""

    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    reasoning_content: bool = False  # every assistant message carries `reasoning_content`
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


_EXTRAS = frozenset({"reasoning_details", "call_signatures"})


def _extras(message: AssistantMessage) -> dict[str, Any]:
    """The server data kept on `message`: `reasoning_details`, `thought_signatures`."""
    out: dict[str, Any] = {}
    for part in message.content:
        if isinstance(part, ProviderData) and part.kind in _EXTRAS:
            out |= part.data
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
    if compat.reasoning_content or _DEEPSEEK.search(request.model.name):
        # another model's thinking is not this one's: it goes back empty, but it goes back
        out["reasoning_content"] = reasoning if ours else ""
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


def _mark(message: dict[str, Any], mark: dict[str, str]) -> None:
    """`mark` on the last content part of `message` (text content becomes one part)."""
    content = message.get("content")
    if isinstance(content, str):
        message["content"] = [{"type": "text", "text": content, "cache_control": mark}]
    elif isinstance(content, list) and content:
        content[-1]["cache_control"] = mark


def _mark_cache(messages: list[dict[str, Any]], request: Request, cache: CacheSettings) -> None:
    """OpenRouter's breakpoints for Claude and Gemini models, placed as for Anthropic itself
    (`auger.llm.anthropic_body`): the system prompt, where the previous request ended (the
    message before the last answer) and the last message."""
    if not _MARKED_CACHE.search(request.model.name):
        return
    if not request.tools and len(request.messages) < 2:  # a one-off: see `anthropic_body`
        return
    mark = {"type": "ephemeral"}
    if cache.ttl == "1h" and request.model.name.lower().startswith("anthropic/"):
        mark["ttl"] = "1h"
    answers = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    ends = {len(messages) - 1} | ({answers[-1] - 1} if answers and answers[-1] > 0 else set())
    if messages and messages[0]["role"] == "system":
        ends.add(0)
    for index in sorted(ends):
        if messages[index]["role"] != "assistant" and messages[index].get("content"):
            _mark(messages[index], mark)


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


def request_body(
    request: Request, compat: Compat | None = None, cache: CacheSettings | None = None
) -> dict[str, Any]:
    """The JSON body of a streamed chat completion."""
    compat = compat or Compat()
    messages = chat_messages(request, compat)
    _mark_cache(messages, request, cache or CacheSettings())
    body: dict[str, Any] = {
        "model": request.model.name,
        "messages": messages,
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
