"""Compaction: which part of a branch to summarise, how to ask the model, and token estimates."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.session.context import latest_compaction
from auger.session.entries import CompactionEntry, Entry, MessageEntry

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1200
TOOL_RESULT_CHARS = 2000

SUMMARY_SYSTEM = (
    "You write the working memory of a coding agent. You are given a conversation between a "
    "user and the agent (and sometimes an earlier summary of it). Write a summary that lets "
    "the agent continue the work without the conversation. Be specific: names of files, "
    "functions, commands, errors and decisions. Do not continue the conversation or answer "
    "questions in it."
)

SUMMARY_FORMAT = """Write the summary in exactly these sections (Markdown):

## Goal
## Constraints and preferences
## Progress
### Done
### In progress
### Blocked
## Key decisions
## Next steps
## Critical context
## Files read
## Files modified"""


def estimate(message: Message) -> int:
    """A rough token count: four characters a token, a flat cost per image."""
    chars = 0
    images = 0
    for part in message.content:
        if isinstance(part, TextPart | ReasoningPart):
            chars += len(part.text)
        elif isinstance(part, ToolCall):
            chars += len(part.name) + len(part.arguments)
        elif isinstance(part, ImagePart):
            images += 1
    return chars // CHARS_PER_TOKEN + images * IMAGE_TOKENS + 4


class Plan(msgspec.Struct, frozen=True):
    """What a compaction will do: summarise `older` (updating `previous`), keep the rest
    from `first_kept_id`."""

    older: list[Message]
    previous: str | None
    first_kept_id: str
    tokens_before: int
    kept: int


def plan(branch: Sequence[Entry], keep_recent_tokens: int) -> Plan | None:
    """The compaction of `branch` that keeps about `keep_recent_tokens` of recent messages.

    The kept part starts at a user or assistant message, never at a tool result (so a tool
    call and its result stay together); everything before it — the first half of a turn cut
    in two included — is summarised. `None` when there is nothing older to summarise.
    """
    previous: CompactionEntry | None = None
    start = 0
    found = latest_compaction(branch)
    if found is not None:
        previous, start = branch[found[0]], found[1]  # type: ignore[assignment]
    candidates = [e for e in branch[start:] if isinstance(e, MessageEntry) and e is not previous]
    total = sum(estimate(e.message) for e in candidates)
    recent = 0
    cut = len(candidates)
    while cut > 0 and recent < keep_recent_tokens:
        cut -= 1
        recent += estimate(candidates[cut].message)
    while cut > 0 and isinstance(candidates[cut].message, ToolResultMessage):
        cut -= 1
    if cut <= 0:
        return None
    older = [e.message for e in candidates[:cut]]
    tokens_before = total + (estimate(UserMessage.of(previous.summary)) if previous else 0)
    return Plan(
        older,
        previous.summary if previous else None,
        candidates[cut].id,
        tokens_before,
        len(candidates) - cut,
    )


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text for the summariser (long tool results shortened)."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[User]\n{message.text}")
        elif isinstance(message, AssistantMessage):
            for part in message.content:
                if isinstance(part, TextPart):
                    lines.append(f"[Agent]\n{part.text}")
                elif isinstance(part, ToolCall):
                    lines.append(f"[Agent calls {part.name}] {part.arguments}")
        else:
            text = message.text
            if len(text) > TOOL_RESULT_CHARS:
                text = text[:TOOL_RESULT_CHARS] + f"\n[… {len(text) - TOOL_RESULT_CHARS} chars]"
            status = " (error)" if message.is_error else ""
            lines.append(f"[Result of {message.name}{status}]\n{text}")
    return "\n\n".join(lines)


def summary_request_text(
    older: Sequence[Message], previous: str | None, instruction: str | None
) -> str:
    """The user message that asks the model for the summary."""
    parts = []
    if previous:
        parts.append(
            "Here is the earlier summary of this conversation. Update it with what happened "
            f"since, keeping everything that still matters:\n<summary>\n{previous}\n</summary>"
        )
    parts.append(f"<conversation>\n{transcript(older)}\n</conversation>")
    if instruction:
        parts.append(f"The user asks you to focus on: {instruction}")
    parts.append(SUMMARY_FORMAT)
    return "\n\n".join(parts)
