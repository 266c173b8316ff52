"""Compaction as the engine runs it: when, asking the model, and recording the result."""

from __future__ import annotations

from collections.abc import Sequence

from auger.bus import Bus
from auger.engine.attempt import Exchange
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.events import SessionBeforeCompact
from auger.llm.errors import ProviderError
from auger.llm.messages import Message
from auger.llm.provider import Request, ToolSpec
from auger.llm.records import TextDelta, TokenUsageDone
from auger.llm.usage import Usage
from auger.records import Compact
from auger.session.compaction import plan, summary_messages
from auger.session.entries import CompactionEntry


def is_full(state: AgentState, system: str) -> bool:
    """Whether the next request would not fit in the window less the reserve."""
    window = state.model.context_window
    limit = window - state.limits.compaction.reserve(window)
    return state.conversation.context_tokens(system) > limit


async def summarize(
    state: AgentState,
    exchange: Exchange,
    messages: Sequence[Message],
    system: str | None = None,
    tools: tuple[ToolSpec, ...] | None = None,
) -> str:
    """Ask the current model for the structured summary; its usage goes to the ledger.

    Sent as the turn's own requests are (system prompt and tools — the registry's between
    turns —, reasoning, cache key), so it continues their cached prefix."""
    request = Request(
        state.model,
        state.registry.system_prompt() if system is None else system,
        tuple(messages),
        tuple(t.spec for t in state.tools.values()) if tools is None else tools,
        None,
        state.limits.reasoning,
        cache_key=state.conversation.id,
    )
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
    state: AgentState,
    stream: Stream,
    bus: Bus,
    instruction: str | None = None,
    *,
    automatic: bool,
    system: str | None = None,
    tools: tuple[ToolSpec, ...] | None = None,
) -> bool:
    """Summarise the older part of the branch and keep the recent part; `system` and `tools`
    are the turn's (the registry's between turns).

    Whether anything was compacted: not when nothing is old enough, an extension cancelled,
    or the summary failed (each says so).
    """
    keep = state.limits.compaction.keep_recent(state.model.context_window)
    branch = state.conversation.session.branch()
    planned = plan(branch, keep)
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
            messages = summary_messages(branch, planned, out.event.instruction)
            exchange = Exchange(bus)
            async with exchange.progress("compacting the conversation"):
                summary = await summarize(state, exchange, messages, system, tools)
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
