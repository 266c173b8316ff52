"""The context message (where, when, AGENTS.md, skills) the engine sends before a user turn
when it is new or has changed: helpers to find it and to see the conversation without it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

CONTEXT_OPEN = "<context>\n"


def _text(message: Any) -> str:
    if isinstance(message, dict):
        if message.get("role") != "user":
            return ""
        content = message.get("content", "")
        if isinstance(content, str):
            return content
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if getattr(message, "role", None) != "user":
        return ""
    return message.text


def is_context(message: Any) -> bool:
    """Whether `message` (a Message or its wire dict) is a context message."""
    return _text(message).startswith(CONTEXT_OPEN)


def conversation(messages: Iterable[Any]) -> list[Any]:
    """`messages` without the context messages: what the user and the model said."""
    return [m for m in messages if not is_context(m)]


def contexts(messages: Iterable[Any]) -> list[str]:
    """The text of each context message in `messages`, in order."""
    return [_text(m) for m in messages if is_context(m)]
