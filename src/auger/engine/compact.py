"""Compaction as the engine runs it: when, asking the model, and recording the result."""

from __future__ import annotations

from collections.abc import Sequence

from auger.bus import Bus
from auger.engine.attempt import Exchange
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.events import SessionBeforeCompact
from auger.llm.errors import ProviderError
from auger.llm.messages import Message, UserMessage
from auger.llm.provider import Request
from auger.llm.records import TextDelta, TokenUsageDone
from auger.llm.usage import Usage
from auger.records import Compact
from auger.session.compaction import SUMMARY_SYSTEM, plan, summary_request_text
from auger.session.entries import CompactionEntry


def is_full(state: AgentState, system: str) -> bool:
    """Whether the next request would not fit in the window less the reserve."""
    window = state.model.context_window
    limit = window - state.limits.compaction.reserve(window)
    return state.conversation.context_tokens(system) > limit


async def summarize(
    state: AgentState,
    exchange: Exchange,
    older: Sequence[Message],
    previous: str | None,
    instruction: str | None,
) -> str:
    """Ask the current model for the structured summary; its usage goes to the ledger."""
    text = summary_request_text(older, previous, instruction)
    request = Request(state.model, SUMMARY_SYSTEM, (UserMessage.of(text),))
    pieces: list[str] = []
    usage = Usage()
    async for record in state.provider.stream(request, exchange):
        if type(record) is TextDelta:
            pieces.append(record.content)
        elif isinstance(record, TokenUsageDone):
            usage = record.usage
    state.ledger.add(usage)
    return "".join(pieces).strip()


async def compact(
    state: AgentState, stream: Stream, bus: Bus, instruction: str | None = None, *, automatic: bool
) -> bool:
    """Summarise the older part of the branch and keep the recent part.

    Whether anything was compacted: not when nothing is old enough, an extension cancelled,
    or the summary failed (each says so).
    """
    keep = state.limits.compaction.keep_recent(state.model.context_window)
    planned = plan(state.conversation.session.branch(), keep)
    if planned is None:
        if not automatic:  # before a model call, there is nothing to say: the call goes ahead
            stream.notify("nothing to compact yet", "info")
        return False
    out = await bus.emit(SessionBeforeCompact(automatic, instruction))
    if out.stopped:
        stream.notify("compaction cancelled by an extension", "warning")
        return False
    summary = out.event.summary
    if summary is None:
        try:
            summary = await summarize(
                state, Exchange(bus), planned.older, planned.previous, out.event.instruction
            )
        except ProviderError as exc:
            stream.notify(f"compaction failed: {exc.message}", "error")
            return False
        if not summary:
            stream.notify("compaction failed: the model returned no summary", "error")
            return False
    state.conversation.append_entry(
        CompactionEntry(summary, planned.first_kept_id, planned.tokens_before)
    )
    await stream.publish(Compact(len(planned.older), planned.kept, automatic))
    return True
