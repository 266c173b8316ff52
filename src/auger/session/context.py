"""The model context of a branch, and what a branch tells about its model and usage."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import msgspec

from auger.llm.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.usage import ZERO, Usage
from auger.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
)

COMPACTION_PREFIX = "The conversation so far was compacted. Summary:\n"
CONTEXT_OPEN = "<context>\n"
CONTEXT_CLOSE = "\n</context>"
"""How the context message (where, when, AGENTS.md, skills) is wrapped."""


def is_context(message: Message) -> bool:
    """Whether `message` is the context message: the engine's, not something a person said."""
    return isinstance(message, UserMessage) and message.text.startswith(CONTEXT_OPEN)


BRANCH_SUMMARY_PREFIX = (
    "The user left another branch of this conversation and came back here. "
    "Summary of that branch:\n"
)
INTERRUPTED = "ERROR: interrupted — this tool call never finished"


class Totals(msgspec.Struct, frozen=True):
    """What a branch used: its assistant messages' usage summed, and how many messages it has."""

    usage: Usage
    messages: int


def latest_compaction(branch: Sequence[Entry]) -> tuple[int, int] | None:
    """Where the latest compaction of `branch` is, and where the entries it keeps start
    (its own index when its first kept entry is not on the branch); `None` without one."""
    for i in range(len(branch) - 1, -1, -1):
        entry = branch[i]
        if isinstance(entry, CompactionEntry):
            first = next((j for j in range(i) if branch[j].id == entry.first_kept_id), i)
            return i, first
    return None


def _kept(branch: Sequence[Entry]) -> tuple[list[Message], Iterable[Entry]]:
    """The summary message of the latest compaction (if any) and the entries it keeps."""
    found = latest_compaction(branch)
    if found is None:
        return [], branch
    i, first = found
    compaction = branch[i]
    assert isinstance(compaction, CompactionEntry)
    summary = UserMessage.of(COMPACTION_PREFIX + compaction.summary)
    kept = [*branch[first:i], *branch[i + 1 :]]
    if any(_context(entry) for entry in kept):
        return [summary], kept
    # the context message summarised away mid-turn still holds: it follows the summary
    context = next((m for m in map(_context, reversed(branch[:first])) if m), None)
    return [summary, *([context] if context else [])], kept


def _context(entry: Entry) -> Message | None:
    message = _as_message(entry) if isinstance(entry, CustomMessageEntry) else None
    return message if message is not None and is_context(message) else None


def _as_message(entry: Entry) -> Message | None:
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        return UserMessage.of(entry.content)
    if isinstance(entry, BranchSummaryEntry):
        return UserMessage.of(BRANCH_SUMMARY_PREFIX + entry.summary)
    return None


def _interrupted(calls: Iterable[ToolCall]) -> Iterator[ToolResultMessage]:
    for call in calls:
        yield ToolResultMessage(call.call_id, call.name, (TextPart(INTERRUPTED),), is_error=True)


def build_context(branch: Sequence[Entry]) -> list[Message]:
    """The messages to send the model for a branch (root first).

    The latest compaction replaces everything before its `first_kept_id` with its summary
    (followed by the latest context message, when the kept part has none);
    branch summaries and custom messages become user messages; other entries send nothing.
    A tool call not answered in the run of tool results right after its assistant message is
    answered there with an `interrupted` error: history is data, so it is never re-run. A tool
    result whose call is not in the assistant message before it is left out.
    """
    out, entries = _kept(branch)
    unanswered: dict[str, ToolCall] = {}
    asked: set[str] = set()  # the calls of the latest assistant message
    for entry in entries:
        message = _as_message(entry)
        if message is None:
            continue
        if isinstance(message, ToolResultMessage):
            if message.call_id not in asked:
                continue  # its call was lost (a skipped entry): no server takes an orphan
            unanswered.pop(message.call_id, None)
        else:
            if unanswered:
                out.extend(_interrupted(unanswered.values()))
            unanswered = (
                {call.call_id: call for call in message.tool_calls}
                if isinstance(message, AssistantMessage)
                else {}
            )
            asked = set(unanswered)
        out.append(message)
    out.extend(_interrupted(unanswered.values()))
    return out


def last_model(branch: Sequence[Entry]) -> tuple[str, str] | None:
    """The `(provider, model)` of the latest model change or assistant message, if any."""
    for entry in reversed(branch):
        if isinstance(entry, ModelChangeEntry):
            return entry.provider, entry.model
        if (
            isinstance(entry, MessageEntry)
            and isinstance(entry.message, AssistantMessage)
            and entry.message.model
        ):
            return entry.message.provider, entry.message.model
    return None


def totals(branch: Sequence[Entry]) -> Totals:
    """The usage of every assistant message on the branch, summed, and its message count."""
    usage = ZERO
    count = 0
    for entry in branch:
        if isinstance(entry, MessageEntry):
            count += 1
            if isinstance(entry.message, AssistantMessage):
                usage = usage + entry.message.usage
    return Totals(usage, count)
