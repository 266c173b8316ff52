"""One turn, in the order of SPEC §4 and nothing else: the model calls, the tool rounds
between them, and the `turn_end` that always closes the stream."""

from __future__ import annotations

import asyncio

import msgspec

from auger.bus import Bus
from auger.engine.compact import Compaction
from auger.engine.dispatch import Dispatch
from auger.engine.retry import Failure, Steps, call_model
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.events import AgentEnd, AgentStart, BeforeAgentStart, BeforeRequest, Idle, TurnStart
from auger.llm.arguments import too_deep
from auger.llm.messages import AssistantMessage, TextPart, ToolCall, UserMessage, UserPart
from auger.llm.provider import ToolSpec
from auger.llm.records import Record
from auger.llm.usage import Usage
from auger.records import StopReason, TurnEnd, TurnError
from auger.session.context import is_context
from auger.session.entries import CustomMessageEntry

STOPPING_FINISHES: frozenset[str] = frozenset({"length", "content_filter", "context_window"})
CONTEXT_KIND = "context"
"""The `custom_message` kind of the context message in a session file."""


class Answer(msgspec.Struct, frozen=True):
    """What `ask()` returns: the final text, how the turn ended, and what it used."""

    text: str
    stop_reason: str
    usage: Usage

    @property
    def cost(self) -> float | None:
        """The turn's price in USD, or `None` when the model is not priced."""
        return self.usage.cost


class Turn:
    """What one turn has learned so far."""

    def __init__(self, text: str, attachments: tuple[UserPart, ...] = ()) -> None:
        self.text = text
        self.attachments = attachments
        self.stop: StopReason = "completed"
        self.final_text = ""
        self.error: TurnError | None = None
        self.agent_started = False
        self.warned_full = False


async def run_turn(
    state: AgentState, stream: Stream, bus: Bus, text: str, attachments: tuple[UserPart, ...] = ()
) -> None:
    """Run one prompt (with files and images attached after its text) to its end; the stream
    always closes with `turn_end`."""
    turn = Turn(text, attachments)
    state.ledger.begin_turn(state.model.no_usage)
    try:
        await _turn(state, stream, bus, turn)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        turn.stop = "cancelled"
    except Exception as exc:  # the stream must still end with turn_end
        turn.stop = "error"
        stream.notify(f"internal error: {type(exc).__name__}: {exc}", "error")
    if turn.agent_started:
        await closing(state, stream, bus, AgentEnd(turn.final_text))
    completed = turn.stop == "completed"
    unexecuted: tuple[str, ...] = ()
    if completed and turn.final_text:
        from auger.llm.textcalls import unexecuted as unexecuted_calls  # lazily: start-up

        unexecuted = tuple(unexecuted_calls(turn.final_text, state.tools))
    if unexecuted:
        stream.notify(
            f"the answer holds a call to {', '.join(unexecuted)} written as text: it did not run",
            "warning",
        )
    record = TurnEnd(turn.stop, state.ledger.turn, turn.final_text, turn.error, unexecuted or None)
    await end_turn(state, stream, bus, record)


async def _turn(state: AgentState, stream: Stream, bus: Bus, turn: Turn) -> None:
    await bus.emit(TurnStart(turn.text))
    out = await bus.emit(BeforeAgentStart(turn.text, state.registry.system_prompt()))
    if out.stopped:
        turn.stop = "guardrail_blocked"
        stream.notify("an extension cancelled this turn", "warning")
        return
    prompt, system = out.event.prompt, out.event.system_prompt
    turn.agent_started = True
    await bus.emit(AgentStart(prompt))
    conversation = state.conversation
    added = await bus.emit(BeforeRequest(prompt, len(conversation.messages)))
    _send_context(state)
    conversation.append(UserMessage((TextPart(added.event.prompt), *turn.attachments)))
    # the system prompt and the tools stay byte-identical for the whole turn, so every
    # request of it is a prefix of the next (caches reuse it; signed thinking stays valid)
    tools = state.tool_specs()
    steps = Steps()
    dispatch = Dispatch(lambda: state.tools, state.workplace(), conversation.append, stream, bus)
    responses = 0
    while True:
        if state.boundary is not None:
            await state.boundary()
        await _report_jobs(state, stream)
        await _keep_room(state, stream, bus, turn, system, tools)
        try:
            message = await call_model(state, stream, bus, steps, system, tools)
        except asyncio.CancelledError:
            if steps.partial_text is not None:
                turn.final_text = steps.partial_text
            raise
        except Failure as failed:
            turn.stop = failed.stop  # type: ignore[assignment]
            turn.error = {"kind": failed.error.kind, "message": failed.error.message}
            return
        conversation.append(_storable(message))
        responses += 1
        turn.final_text = message.text
        calls = message.tool_calls
        if calls:
            await dispatch.run(calls)
            if state.end_with is not None:
                turn.final_text, state.end_with = state.end_with, None
                return
        if message.stop_reason in STOPPING_FINISHES:
            turn.stop = message.stop_reason  # type: ignore[assignment]
            return
        if not calls:
            return
        if responses >= state.limits.max_steps:
            turn.stop = "max_steps"
            stream.notify(
                f"stopped after {state.limits.max_steps} model calls (max_steps)", "warning"
            )
            return


def _storable(message: AssistantMessage) -> AssistantMessage:
    """The response as it is kept: a call's arguments nested deeper than any tool takes are
    kept as `{}` (the call itself is told why it failed), so the session loads again."""
    parts = tuple(
        msgspec.structs.replace(p, arguments="{}")
        if isinstance(p, ToolCall) and too_deep(p.arguments)
        else p
        for p in message.content
    )
    return msgspec.structs.replace(message, content=parts) if parts != message.content else message


def _send_context(state: AgentState) -> None:
    """Put the context message (where, when, AGENTS.md, skills) before this turn's prompt when
    it is new or has changed since the last one the model was sent — appended, never rewritten,
    so everything sent before stays a prefix of what is sent next."""
    text = state.registry.context_text()
    if not text:
        return
    for message in reversed(state.conversation.messages):
        if is_context(message):
            if message.text == text:
                return
            break
    state.conversation.append_entry(CustomMessageEntry(CONTEXT_KIND, text, display=False))


async def _report_jobs(state: AgentState, stream: Stream) -> None:
    exits = state.jobs.take_exits()
    if not exits:
        return
    for record in exits:
        await stream.publish(record)
    state.conversation.append(UserMessage.of(state.jobs.notice(exits)))


async def _keep_room(
    state: AgentState,
    stream: Stream,
    bus: Bus,
    turn: Turn,
    system: str,
    tools: tuple[ToolSpec, ...],
) -> None:
    """Compact before a model call that would not fit (or say so, when compaction is off)."""
    compaction = Compaction.of(state, stream, bus)
    if not compaction.is_full(system):
        return
    if state.limits.compaction.enabled:
        await compaction.run(system, tools, automatic=True)
    elif not turn.warned_full:
        turn.warned_full = True
        stream.notify(
            "the context is full and automatic compaction is off (compaction.enabled: false)",
            "warning",
        )


async def end_turn(state: AgentState, stream: Stream, bus: Bus, record: TurnEnd) -> None:
    """Run the `turn_end` and `idle` handlers (in the host's order), then stream `turn_end`
    last, so nothing a handler raises can follow it."""
    for event in (Idle(), record) if state.limits.idle_first else (record, Idle()):
        await closing(state, stream, bus, event)
    await stream.observe_notices()
    stream.emit(record)


async def closing(state: AgentState, stream: Stream, bus: Bus, event: Record) -> None:
    """Run the handlers of an event that closes a turn or a session, bounded: past
    `closing_timeout`, or at a cancel (the first Ctrl-C), they are cut short and said so — a
    stuck handler or hook never keeps the stream from its end."""
    limit = state.limits.closing_timeout
    try:
        async with asyncio.timeout(limit):
            await bus.emit(event)
    except TimeoutError:
        stream.notify(f"{event.type} handlers took longer than {limit:g}s; cut short", "warning")
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        stream.notify(f"{event.type} handlers were cancelled", "warning")


def quiet_end(stop: StopReason = "completed", error: TurnError | None = None) -> TurnEnd:
    """The `turn_end` of work that ran no model call."""
    return TurnEnd(stop, Usage(), "", error)
