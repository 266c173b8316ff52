"""Compaction: which part of a branch to summarise, how to ask the model, and token estimates."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from auger.llm.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.session.context import build_context, latest_compaction
from auger.session.entries import CompactionEntry, Entry, MessageEntry

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1200

SUMMARY_TASK = (
    "Stop here: do not call tools and do not continue the work. Write the working memory of "
    "this conversation instead — a summary of everything above this message that lets you "
    "continue the work without it (the latest messages are kept after the summary). Be "
    "specific: names of files, functions, commands, errors and decisions."
)
"""How the summary request's last user message opens (it follows the conversation as-is)."""
BRANCH_TASK = (
    "Stop here: do not call tools and do not continue the work. The user is leaving this "
    "branch of the conversation for an earlier point of it. Write a summary of what was done "
    "and learned here, so the work can go on from that point without repeating it. Be "
    "specific: names of files, functions, commands, errors and decisions."
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
        entry = branch[found[0]]
        assert isinstance(entry, CompactionEntry)
        previous, start = entry, found[1]
    candidates = [e for e in branch[start:] if isinstance(e, MessageEntry)]
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


def summary_request_text(previous: bool, instruction: str | None) -> str:
    """The user message that asks the model for the summary of the messages before it."""
    parts = [SUMMARY_TASK]
    if previous:
        parts.append(
            "The conversation above opens with an earlier summary of it. Update it with what "
            "happened since, keeping everything that still matters."
        )
    if instruction:
        parts.append(f"The user asks you to focus on: {instruction}")
    parts.append(SUMMARY_FORMAT)
    return "\n\n".join(parts)


def summary_messages(
    branch: Sequence[Entry], planned: Plan, instruction: str | None
) -> list[Message]:
    """The summary request's messages: the branch as the model is sent it, up to the first
    kept message, then the request for the summary.

    They are a prefix of what the model was last sent (same system prompt and tools go with
    them), so a prompt cache serves everything but the request itself — a transcript in a
    fresh prompt would be billed in full."""
    messages = build_context(branch)
    first = next(
        e.message for e in branch if isinstance(e, MessageEntry) and e.id == planned.first_kept_id
    )
    cut = next((i for i, m in enumerate(messages) if m is first), len(messages))
    ask = UserMessage.of(summary_request_text(planned.previous is not None, instruction))
    return [*messages[:cut], ask]


def branch_summary_messages(messages: Sequence[Message]) -> list[Message]:
    """The request for the summary of a branch being left: `messages` (the branch as the
    model is sent it, a cached prefix) and the request."""
    return [*messages, UserMessage.of(f"{BRANCH_TASK}\n\n{SUMMARY_FORMAT}")]
