"""A saved conversation shown again: its messages turned into the records the renderer draws,
so a resumed session's transcript is on screen before the prompt."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from auger.hosts.terminal.render import Renderer
from auger.llm.arguments import arguments_or_empty
from auger.llm.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.records import AfterToolCall, ReasoningDone, TextDelta, TextDone, ToolCallDone
from auger.session.context import is_context
from auger.tools.base import ToolResponse


class Said(str):
    """Text the person sent (the renderer shows it with `user`)."""

    __slots__ = ()


def records(messages: Iterable[Message]) -> Iterator[Any]:
    """What to draw for `messages`: `Said` for the person's text, records for the rest."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        if isinstance(message, UserMessage):
            if message.text and not is_context(message):
                yield Said(message.text)
        elif isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, ReasoningPart) and part.text:
                    yield ReasoningDone(part.text)
                elif isinstance(part, TextPart) and part.text:
                    yield TextDelta(part.text)
                    yield TextDone(part.text)
                elif isinstance(part, ToolCall):
                    calls[part.call_id] = (part.name, arguments_or_empty(part.arguments))
                    yield ToolCallDone(part.call_id, part.name, part.arguments)
        elif isinstance(message, ToolResultMessage):
            name, args = calls.pop(message.call_id, (message.name, {}))
            result = ToolResponse(message.text, "error" if message.is_error else None)
            yield AfterToolCall(message.call_id, name, args, result, 0.0, 0.0)


def show(renderer: Renderer, messages: Iterable[Message]) -> None:
    """Draw `messages` as the session showed them when they streamed."""
    for item in records(messages):
        if isinstance(item, Said):
            renderer.user(item)
        else:
            renderer.feed(item)
    renderer.end_stream()
