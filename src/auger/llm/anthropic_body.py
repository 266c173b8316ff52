"""The Anthropic Messages request builder: pure functions from a `Request` to the JSON body.

Thinking follows https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking and
https://platform.claude.com/docs/en/build-with-claude/thinking; cache breakpoints follow
https://platform.claude.com/docs/en/build-with-claude/prompt-caching (see `_mark_cache`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from auger.llm import server_tools
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
from auger.llm.provider import Request, ThinkingStyle
from auger.llm.replay import Replay
from auger.llm.sendable import CallIds, tool_input

API: ApiName = "messages"
THINKING_BUDGETS = {"low": 4096, "medium": 10_000, "high": 32_000}
_MIN_BUDGET = 1024  # the API's smallest thinking budget
# `output_config.effort` values; `xhigh` and `max` exist on current models only
_EFFORTS = ("low", "medium", "high", "xhigh", "max")
# budget-thinking models think between tool calls only with this beta (adaptive ones always do)
INTERLEAVED = "interleaved-thinking-2025-05-14"
_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:-(\d{1,2}))?(?:-|$)")

Ttl = Literal["5m", "1h"]


def thinking_style(name: str) -> ThinkingStyle:
    """How an unlisted Claude model is asked to think, by the documented rule: adaptive
    thinking from Claude 4.6 on (the Claude 5 family and Opus 4.7+ refuse `enabled`), a
    budget before; a name without a version keeps the budget form."""
    match = _VERSION.match(name)
    if match is None:
        return "budget"
    major, minor = int(match.group(1)), int(match.group(2) or 0)
    return "adaptive" if (major, minor) >= (4, 6) else "budget"


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


def _kept_block(part: ProviderData, thought: str) -> dict[str, Any] | None:
    """The block `part` keeps; `thought` is the text of the reasoning just before it."""
    if part.kind == "thinking_signature":
        return {"type": "thinking", "thinking": thought, "signature": part.data["signature"]}
    if part.kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": part.data["data"]}
    if part.kind == "server_block":
        return dict(part.data)
    return None


def _assistant_blocks(
    index: int, message: AssistantMessage, replay: Replay, ids: CallIds
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    thought = ""  # the reasoning a signature after it signs
    for part in message.content:
        if isinstance(part, ReasoningPart):
            thought = part.text
            continue
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
        elif replay.sendable(index, part) and (block := _kept_block(part, thought)):
            blocks.append(block)
        thought = ""
    return blocks


def messages_body(request: Request, ttl: Ttl = "5m", api: str = API) -> list[dict[str, Any]]:
    """The request's messages as Messages API turns, with rolling cache breakpoints; `api` is
    the format whose signatures may go back (a cloud's Messages has its own)."""
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
    if request.tools or len(request.messages) > 1:
        _mark_cache(out, ttl)
    return out


def cache_control(ttl: Ttl) -> dict[str, str]:
    """A breakpoint's `cache_control`; the 5-minute default is sent without a `ttl`."""
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def _mark_cache(turns: list[dict[str, Any]], ttl: Ttl) -> None:
    """Breakpoints on the last block of the last two user turns (the system prompt holds a
    third; four are allowed).

    A hit is looked for at most 20 blocks before a breakpoint, and one parallel tool step adds
    more than that (each call is a `tool_use` and a `tool_result`), so a single breakpoint at
    the end — which is all the automatic top-level `cache_control` places — misses after it.
    The previous user turn's last block is exactly where the previous request ended, so its
    breakpoint reads that request's entry however many blocks the step added.

    A write costs more than input (1.25×, 2× for an hour) and pays only when a later request
    extends the prefix, so a lone message offered no tools — a one-off request — is not
    marked (`messages_body`)."""
    users = [t for t in turns if t["role"] == "user" and t["content"]]
    for turn in users[-2:]:
        turn["content"][-1]["cache_control"] = cache_control(ttl)


def _continues_unthought(messages: list[dict[str, Any]]) -> bool:
    # with thinking on, an assistant turn that called tools must open with its thinking; one whose
    # thinking could not be kept is continued without thinking rather than rejected
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return False
    last = messages[-2]
    first = last["content"][0] if last["role"] == "assistant" and last["content"] else None
    calls = any(b["type"] == "tool_use" for b in last["content"]) if first else False
    return calls and first is not None and "thinking" not in first["type"]


def _thinking(request: Request, body: dict[str, Any], style: ThinkingStyle) -> None:
    effort = request.reasoning or ""
    if style == "adaptive":
        # the latest models omit the thinking text unless asked: summarized shows it
        body["thinking"] = {"type": "adaptive", "display": "summarized"}
        body["output_config"] = {"effort": effort if effort in _EFFORTS else "medium"}
        return
    max_tokens = body["max_tokens"]
    budget = THINKING_BUDGETS.get(effort, THINKING_BUDGETS["high" if effort else "medium"])
    if budget >= max_tokens:  # the budget must leave room for the answer
        budget = max(max_tokens - _MIN_BUDGET, _MIN_BUDGET)
        body["max_tokens"] = max(max_tokens, budget + _MIN_BUDGET)
    body["thinking"] = {"type": "enabled", "budget_tokens": budget}


def request_body(
    request: Request, *, ttl: Ttl = "5m", style: ThinkingStyle | None = None, api: str = API
) -> dict[str, Any]:
    """The JSON body of a streamed Messages call; `style` overrides the model's thinking."""
    body: dict[str, Any] = {
        "model": request.model.name,
        "max_tokens": request.max_tokens or request.model.max_output,
        "messages": messages_body(request, ttl, api),
        "stream": True,
    }
    if request.system:
        body["system"] = [
            {"type": "text", "text": request.system, "cache_control": cache_control(ttl)}
        ]
    served = server_tools.anthropic_tools(request)
    if request.tools or served:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
            if not any(s["name"] == t.name for s in served)  # the provider's own wins
        ] + served
    if request.reasoning and not _continues_unthought(body["messages"]):
        chosen = style or request.model.thinking
        _thinking(request, body, chosen or thinking_style(request.model.name))
    return body
