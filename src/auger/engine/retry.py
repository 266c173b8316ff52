"""The policy around one model attempt: retry what is retryable, compact once on overflow."""

from __future__ import annotations

import asyncio

from auger.bus import Bus
from auger.engine.attempt import Attempt, Exchange
from auger.engine.compact import Compaction
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.events import Context, ErrorEvent
from auger.llm.errors import ProviderError
from auger.llm.messages import AssistantMessage
from auger.llm.provider import Request, ToolSpec
from auger.llm.server_tools import SEARCH_APIS, WEB_SEARCH


class Failure(Exception):
    """The model call failed for good: the turn ends with `stop` and this error."""

    def __init__(self, stop: str, error: ProviderError) -> None:
        super().__init__(error.message)
        self.stop = stop
        self.error = error


class Steps:
    """What the retry policy remembers across the attempts of one turn."""

    def __init__(self) -> None:
        self.count = 0
        """Stream attempts so far in this turn (`context.step`)."""
        self.overflow_retried = False
        self.partial_text: str | None = None
        """The text of a response cut short by a cancel, kept in the conversation."""


async def call_model(
    state: AgentState,
    stream: Stream,
    bus: Bus,
    steps: Steps,
    system: str,
    tools: tuple[ToolSpec, ...],
) -> AssistantMessage:
    """One model response, retried while nothing of the attempt has streamed yet.

    Raises `Failure` when the call fails for good, `CancelledError` when cancelled (the part
    already streamed is kept in the conversation).
    """
    exchange = Exchange(bus)
    limits = state.limits
    attempt_no = 0
    while True:
        attempt_no += 1
        steps.count += 1
        messages = list(state.conversation.messages)
        if bus.has(Context):
            messages = (await bus.emit(Context(messages, steps.count))).event.messages
        request = Request(
            state.model,
            system,
            tuple(messages),
            tools,
            None,
            limits.reasoning,
            cache_key=state.conversation.id,
            server_tools=(WEB_SEARCH,) if limits.search and state.model.api in SEARCH_APIS else (),
        )
        attempt = Attempt(state.provider, state.ledger, state.place.clock, stream, bus, exchange)
        try:
            return await attempt.run(request)
        except asyncio.CancelledError:
            partial = attempt.builder.message(state.model, cancelled=True)
            if partial.content:
                state.conversation.append(partial)
                steps.partial_text = partial.text
            raise
        except ProviderError as err:
            overflow = err.kind == "context_overflow"
            if overflow and limits.compaction.enabled and not steps.overflow_retried:
                steps.overflow_retried = True
                if not attempt.builder.produced and await Compaction.of(state, stream, bus).run(
                    system, tools, automatic=True
                ):
                    continue
            if (
                err.retryable
                and not attempt.builder.produced
                and attempt_no < limits.retry.attempts
            ):
                delay = limits.retry.delay(attempt_no, err)
                stream.notify(
                    f"{err.message} — retrying in {delay:.1f}s "
                    f"(attempt {attempt_no + 1} of {limits.retry.attempts})",
                    "warning",
                )
                await asyncio.sleep(delay)
                continue
            stream.notify(err.message, "error")
            await bus.emit(ErrorEvent(err.message))
            raise Failure("context_window" if overflow else "error", err) from None
