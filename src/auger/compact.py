"""Compaction as the Runtime runs it: when, asking the model, and recording the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from auger.events import SessionBeforeCompact
from auger.llm.errors import ProviderError
from auger.llm.messages import Message, UserMessage
from auger.llm.provider import Request
from auger.llm.records import TextDelta, TokenUsageDone
from auger.llm.usage import Usage
from auger.records import Compact
from auger.session.compaction import SUMMARY_SYSTEM, plan, summary_request_text
from auger.session.entries import CompactionEntry

if TYPE_CHECKING:
    from auger.runtime import Runtime


class CompactionSettings(msgspec.Struct, frozen=True):
    """`compaction` in settings."""

    enabled: bool = True
    reserve_tokens: int = 16_384
    keep_recent_tokens: int = 20_000

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> CompactionSettings:
        """Read `settings["compaction"]`, with defaults for what is missing."""
        raw = settings.get("compaction")
        if not isinstance(raw, dict):
            return cls()
        default = cls()
        return cls(
            bool(raw.get("enabled", default.enabled)),
            int(raw.get("reserve_tokens", default.reserve_tokens)),
            int(raw.get("keep_recent_tokens", default.keep_recent_tokens)),
        )


def is_full(rt: Runtime, system: str) -> bool:
    """Whether the next request would not fit in `context_window − reserve_tokens`."""
    limit = rt.model.context_window - rt.compaction.reserve_tokens
    return rt.conversation.context_tokens(system) > limit


async def summarize(
    rt: Runtime, older: Sequence[Message], previous: str | None, instruction: str | None
) -> tuple[str, Usage]:
    """Ask the current model for the structured summary; returns it and what it cost."""
    text = summary_request_text(older, previous, instruction)
    request = Request(rt.model, SUMMARY_SYSTEM, (UserMessage.of(text),))
    pieces: list[str] = []
    usage = Usage()
    async for record in rt.provider.stream(request, rt.exchange):
        if type(record) is TextDelta:
            pieces.append(record.content)
        elif type(record) is TokenUsageDone:
            usage = record.usage
    return "".join(pieces).strip(), usage


async def compact(rt: Runtime, instruction: str | None = None, *, automatic: bool) -> Usage | None:
    """Summarise the older part of the branch and keep the recent part.

    Returns the usage of the summary call (zero when an extension supplied the summary), or
    `None` when nothing was compacted: nothing old enough, cancelled, or the summary failed.
    """
    planned = plan(rt.conversation.session.branch(), rt.compaction.keep_recent_tokens)
    if planned is None:
        rt.notify("nothing to compact yet", "info")
        return None
    out = await rt.bus.emit("session_before_compact", SessionBeforeCompact(automatic, instruction))
    if out.stopped:
        rt.notify("compaction cancelled by an extension", "warning")
        return None
    summary, usage = out.event.summary, Usage()
    if summary is None:
        try:
            summary, usage = await summarize(
                rt, planned.older, planned.previous, out.event.instruction
            )
        except ProviderError as exc:
            rt.notify(f"compaction failed: {exc.message}", "error")
            return None
        rt.account(usage)
        if not summary:
            rt.notify("compaction failed: the model returned no summary", "error")
            return None
    rt.conversation.append_entry(
        CompactionEntry(summary, planned.first_kept_id, planned.tokens_before)
    )
    await rt.publish(Compact(len(planned.older), planned.kept, automatic))
    return usage
