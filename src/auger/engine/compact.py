"""Compaction as the engine runs it: when, asking the model, and recording the result."""

from __future__ import annotations

from collections.abc import Sequence

from auger.bus import Bus
from auger.engine.attempt import Exchange
from auger.engine.state import AgentState, CompactionSettings, Ledger
from auger.engine.stream import Stream
from auger.events import SessionBeforeCompact
from auger.llm.errors import ProviderError
from auger.llm.messages import Message
from auger.llm.provider import Model, Provider, Request, ToolSpec
from auger.llm.records import TextDelta, TokenUsageDone
from auger.llm.usage import Usage
from auger.records import Compact
from auger.session.compaction import plan, summary_messages
from auger.session.conversation import Conversation
from auger.session.entries import CompactionEntry


class Compaction:
    """Compacting one conversation with one model: built when it is needed, with what it
    uses — the conversation, the model and its provider, the ledger its summary is paid to,
    the settings, the stream and the bus."""

    def __init__(
        self,
        conversation: Conversation,
        model: Model,
        provider: Provider,
        ledger: Ledger,
        settings: CompactionSettings,
        reasoning: str | None,
        stream: Stream,
        bus: Bus,
    ) -> None:
        self.conversation = conversation
        self.model = model
        self.provider = provider
        self.ledger = ledger
        self.settings = settings
        self.reasoning = reasoning
        self.stream = stream
        self.bus = bus

    @classmethod
    def of(cls, state: AgentState, stream: Stream, bus: Bus) -> Compaction:
        """The compaction of the session `state` holds now."""
        limits = state.limits
        return cls(
            state.conversation,
            state.model,
            state.provider,
            state.ledger,
            limits.compaction,
            limits.reasoning,
            stream,
            bus,
        )

    def is_full(self, system: str) -> bool:
        """Whether the next request would not fit in the window less the reserve."""
        window = self.model.context_window
        return self.conversation.context_tokens(system) > window - self.settings.reserve(window)

    async def summarize(
        self,
        messages: Sequence[Message],
        system: str,
        tools: tuple[ToolSpec, ...],
        label: str = "compacting the conversation",
    ) -> str:
        """Ask the model for the structured summary, the host showing `label` meanwhile; its
        usage goes to the ledger.

        Sent as the turn's own requests are (system prompt, tools, reasoning, cache key), so it
        continues their cached prefix."""
        request = Request(
            self.model,
            system,
            tuple(messages),
            tools,
            None,
            self.reasoning,
            cache_key=self.conversation.id,
        )
        pieces: list[str] = []
        usage = Usage()
        exchange = Exchange(self.bus)
        async with exchange.progress(label):
            async for record in self.provider.stream(request, exchange):
                if type(record) is TextDelta:
                    pieces.append(record.content)
                elif isinstance(record, TokenUsageDone):
                    usage = record.usage
        self.ledger.add(usage)
        return "".join(pieces).strip()

    async def run(
        self,
        system: str,
        tools: tuple[ToolSpec, ...],
        instruction: str | None = None,
        *,
        automatic: bool,
    ) -> bool:
        """Summarise the older part of the branch and keep the recent part; `system` and
        `tools` are the turn's (the registry's between turns).

        Whether anything was compacted: not when nothing is old enough, an extension
        cancelled, or the summary failed (each says so).
        """
        stream = self.stream
        keep = self.settings.keep_recent(self.model.context_window)
        branch = self.conversation.session.branch()
        planned = plan(branch, keep)
        if planned is None:
            if not automatic:  # before a model call there is nothing to say: the call goes on
                stream.notify("nothing to compact yet", "info")
            return False
        out = await self.bus.emit(SessionBeforeCompact(automatic, instruction))
        if out.stopped:
            stream.notify("compaction cancelled by an extension", "warning")
            return False
        summary = out.event.summary
        if summary is None:
            try:
                messages = summary_messages(branch, planned, out.event.instruction)
                summary = await self.summarize(messages, system, tools)
            except ProviderError as exc:
                stream.notify(f"compaction failed: {exc.message}", "error")
                return False
            if not summary:
                stream.notify("compaction failed: the model returned no summary", "error")
                return False
        self.conversation.append_entry(
            CompactionEntry(summary, planned.first_kept_id, planned.tokens_before)
        )
        await stream.publish(Compact(len(planned.older), planned.kept, automatic))
        return True
