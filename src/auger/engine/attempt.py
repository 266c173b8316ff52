"""One model attempt: a request out, the provider's records streamed, an assistant message
back — with one table from provider records to the events they fire."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from auger.bus import Bus
from auger.engine.state import Ledger
from auger.engine.stream import Stream
from auger.events import (
    AfterProviderResponse,
    BeforeProviderRequest,
    MessageEvent,
    ReasoningEvent,
    UsageEvent,
    usage_event,
)
from auger.llm.messages import AssistantMessage, AssistantPart, ReasoningPart, TextPart, ToolCall
from auger.llm.provider import Model, Provider, Request
from auger.llm.records import (
    FinishReasonDone,
    ProviderDataDone,
    ProviderNotice,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.usage import Usage


class Exchange:
    """Lends a provider the `before_provider_request` and `after_provider_response` events."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Let handlers merge headers and replace the body."""
        if not self._bus.has(BeforeProviderRequest):
            return headers, body
        out = await self._bus.emit(BeforeProviderRequest(url, headers, body))
        return out.event.headers, out.event.body

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """Let handlers observe the response."""
        if self._bus.has(AfterProviderResponse):
            await self._bus.emit(AfterProviderResponse(url, status, headers))

    def progress(self, label: str) -> contextlib.AbstractAsyncContextManager[None]:
        """The host shows `label` while the context is open (`Context.progress`)."""
        ctx = self._bus.ctx
        return contextlib.nullcontext() if ctx is None else ctx.progress(label)


class MessageBuilder:
    """Assembles the assistant message from the provider records of one response."""

    def __init__(self) -> None:
        self.parts: list[AssistantPart] = []
        self.usage = Usage()
        self.finish = "stop"
        self.partial: list[str] = []
        self.produced = False

    def add(self, record: Record) -> None:
        """Take in one record."""
        self.produced = True
        if isinstance(record, TextDelta):
            self.partial.append(record.content)
        elif isinstance(record, TextDone):
            self.parts.append(TextPart(record.content))
            self.partial.clear()
        elif isinstance(record, ReasoningDone):
            self.parts.append(ReasoningPart(record.content))
        elif isinstance(record, ToolCallDone):
            self.parts.append(ToolCall(record.call_id, record.name, record.arguments))
        elif isinstance(record, TokenUsageDone):
            self.usage = record.usage
        elif isinstance(record, FinishReasonDone):
            self.finish = record.finish_reason
        elif isinstance(record, ProviderDataDone):
            self.parts.append(record.part)

    def message(self, model: Model, *, cancelled: bool = False) -> AssistantMessage:
        """`model`'s message so far; a cancelled one keeps its text, not unfinished calls."""
        parts = list(self.parts)
        if cancelled:
            parts = [p for p in parts if not isinstance(p, ToolCall)]
            if self.partial:
                parts.append(TextPart("".join(self.partial)))
        return AssistantMessage(
            tuple(parts),
            self.usage,
            "cancelled" if cancelled else self.finish,
            model.provider,
            model.name,
            model.api,
        )


Reaction = Callable[[Record, "Attempt"], Awaitable[None]]


class Attempt:
    """One stream from `provider`: every record is streamed, then the events it fires; its
    usage goes to `ledger`, and `clock` times the reasoning."""

    def __init__(
        self,
        provider: Provider,
        ledger: Ledger,
        clock: Callable[[], float],
        stream: Stream,
        bus: Bus,
        exchange: Exchange,
    ) -> None:
        self.provider = provider
        self.ledger = ledger
        self.clock = clock
        self.stream = stream
        self.bus = bus
        self.exchange = exchange
        self.builder = MessageBuilder()
        self.reasoning_started: float | None = None

    async def run(self, request: Request) -> AssistantMessage:
        """Stream one response to its end; raises `ProviderError` or `CancelledError`."""
        builder, publish = self.builder, self.stream.publish
        async for record in self.provider.stream(request, self.exchange):
            if type(record) is ProviderNotice:  # for the user, not part of the response
                self.stream.notify(record.message, "info")
                continue
            builder.add(record)
            if type(record) is ProviderDataDone:  # the provider's own, for the message only
                continue
            await publish(record)
            react = REACTIONS.get(type(record))
            if react is not None:
                await react(record, self)
        return builder.message(request.model)


async def _reasoning_delta(record: Record, attempt: Attempt) -> None:
    if attempt.reasoning_started is None:
        attempt.reasoning_started = attempt.clock()


async def _text_done(record: Record, attempt: Attempt) -> None:
    assert isinstance(record, TextDone)
    if record.content:
        await attempt.bus.emit(MessageEvent("text", record.content))


async def _reasoning_done(record: Record, attempt: Attempt) -> None:
    assert isinstance(record, ReasoningDone)
    clock = attempt.clock
    started = attempt.reasoning_started if attempt.reasoning_started is not None else clock()
    attempt.reasoning_started = None
    if record.content:  # a block that only carries a provider's data (a signature) says nothing
        await attempt.bus.emit(MessageEvent("reasoning", record.content))
        await attempt.bus.emit(ReasoningEvent(record.content, (clock() - started) * 1000))


async def _usage(record: Record, attempt: Attempt) -> None:
    assert isinstance(record, TokenUsageDone)
    attempt.ledger.add(record.usage)
    if attempt.bus.has(UsageEvent):
        usage = record.usage
        await attempt.bus.emit(usage_event(usage, usage.input_tokens + usage.output_tokens))


REACTIONS: dict[type[Record], Reaction] = {
    ReasoningDelta: _reasoning_delta,
    TextDone: _text_done,
    ReasoningDone: _reasoning_done,
    TokenUsageDone: _usage,
}
"""What each provider record fires beyond being streamed; a record not listed fires nothing."""
