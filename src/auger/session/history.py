"""A session's branch as the records its live stream yielded: what a host draws when it
opens a saved session, with the one renderer it draws a running turn with."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from auger.llm.arguments import arguments_or_empty
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.records import (
    AfterToolCall,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    ToolCallDone,
    UserText,
)
from auger.session.context import is_context
from auger.session.entries import Entry, MessageEntry
from auger.tools.base import ToolResponse


def history(branch: Iterable[Entry]) -> Iterator[Record]:
    """The records of `branch`'s messages, root first: `user_text` for what the person sent
    (the context message is the engine's and stays hidden), the text, reasoning and tool
    calls each answer streamed, and each tool's result."""
    calls: dict[str, tuple[str, str]] = {}
    for entry in branch:
        if not isinstance(entry, MessageEntry):
            continue
        message = entry.message
        if isinstance(message, UserMessage):
            if message.text and not is_context(message):
                yield UserText(message.text)
        elif isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, ReasoningPart) and part.text:
                    yield ReasoningDelta(part.text)
                    yield ReasoningDone(part.text)
                elif isinstance(part, TextPart) and part.text:
                    yield TextDelta(part.text)
                    yield TextDone(part.text)
                elif isinstance(part, ToolCall):
                    calls[part.call_id] = (part.name, part.arguments)
                    yield ToolCallDone(part.call_id, part.name, part.arguments)
        elif isinstance(message, ToolResultMessage):
            name, arguments = calls.pop(message.call_id, (message.name, "{}"))
            kind = (message.error_type or "error") if message.is_error else None
            images = tuple(p for p in message.content if isinstance(p, ImagePart))
            result = ToolResponse(message.text, kind, images)
            args = arguments_or_empty(arguments)
            yield AfterToolCall(message.call_id, name, args, result, 0.0, 0.0)
