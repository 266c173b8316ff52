"""One turn of the agent: model calls, tool dispatch, retries, max_steps and cancel."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import msgspec

from auger.compact import compact, is_full
from auger.events import (
    AfterProviderResponse,
    AgentEnd,
    AgentStart,
    BeforeAgentStart,
    BeforeProviderRequest,
    BeforeRequest,
    Context,
    ErrorEvent,
    Idle,
    MessageEvent,
    ReasoningEvent,
    ToolCallEvent,
    ToolEnd,
    ToolStart,
    TurnStart,
    usage_event,
)
from auger.llm.errors import ProviderError
from auger.llm.messages import (
    AssistantMessage,
    AssistantPart,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    UserPart,
)
from auger.llm.provider import Request
from auger.llm.records import (
    FinishReasonDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.usage import ZERO, Usage
from auger.records import AfterToolCall, BeforeToolCall, TurnEnd
from auger.tools.base import ToolContext, ToolError, ToolResponse

if TYPE_CHECKING:
    from auger.runtime import Runtime

STOPPING_FINISHES = frozenset({"length", "content_filter", "context_window"})


class TurnState(msgspec.Struct):
    """What one turn has learned so far."""

    text: str
    stop: str = "completed"
    usage: Usage = ZERO
    final_text: str = ""
    error: ProviderError | None = None
    step: int = 0
    agent_started: bool = False
    overflow_retried: bool = False
    warned_full: bool = False
    blocked_tools: dict[str, str] = msgspec.field(default_factory=dict)
    attachments: tuple[UserPart, ...] = ()


class Exchange:
    """Lends a provider the `before_provider_request` and `after_provider_response` events."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Let handlers merge headers and replace the body."""
        if not self._rt.bus.has("before_provider_request"):
            return headers, body
        out = await self._rt.bus.emit(
            "before_provider_request", BeforeProviderRequest(url, headers, body)
        )
        return out.event.headers, out.event.body

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """Let handlers observe the response."""
        if self._rt.bus.has("after_provider_response"):
            await self._rt.bus.emit(
                "after_provider_response", AfterProviderResponse(url, status, headers)
            )


class MessageBuilder:
    """Assembles the assistant message from the provider records of one response."""

    def __init__(self) -> None:
        self.parts: list[AssistantPart] = []
        self.usage = Usage()
        self.finish = "stop"
        self.raw_finish: str | None = None
        self.partial: list[str] = []

    def add(self, record: Record) -> None:
        """Take in one record."""
        kind = type(record)
        if kind is TextDelta:
            self.partial.append(record.content)
        elif kind is TextDone:
            self.parts.append(TextPart(record.content))
            self.partial.clear()
        elif isinstance(record, ReasoningDone):
            self.parts.append(ReasoningPart(record.content, record.signature))
        elif isinstance(record, ToolCallDone):
            self.parts.append(ToolCall(record.call_id, record.name, record.arguments))
        elif isinstance(record, TokenUsageDone):
            self.usage = record.usage
        elif isinstance(record, FinishReasonDone):
            self.finish = record.finish_reason
            self.raw_finish = record.raw

    def message(self, runtime: Runtime, *, cancelled: bool = False) -> AssistantMessage:
        """The message so far; a cancelled one keeps its text but drops unfinished calls."""
        parts = list(self.parts)
        if cancelled:
            parts = [p for p in parts if not isinstance(p, ToolCall)]
            if self.partial:
                parts.append(TextPart("".join(self.partial)))
        model = runtime.model
        return AssistantMessage(
            tuple(parts),
            self.usage,
            "cancelled" if cancelled else self.finish,
            model.provider,
            model.name,
            model.api,
        )


async def run_turn(rt: Runtime, text: str, attachments: tuple[UserPart, ...] = ()) -> None:
    """Run one prompt (with files and images attached after its text) to its end; the stream
    always closes with `turn_end`."""
    state = TurnState(text, usage=rt.model.no_usage, attachments=attachments)
    try:
        await _turn(rt, state)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        state.stop = "cancelled"
    except Exception as exc:  # the stream must still end with turn_end
        state.stop = "error"
        rt.notify(f"internal error: {type(exc).__name__}: {exc}", "error")
    rt.freeze_cancel()
    await _finish(rt, state)


async def _turn(rt: Runtime, state: TurnState) -> None:
    await rt.bus.emit("turn_start", TurnStart(state.text))
    out = await rt.bus.emit(
        "before_agent_start", BeforeAgentStart(state.text, rt.render_system_prompt())
    )
    if out.stopped:
        state.stop = "guardrail_blocked"
        rt.notify("an extension cancelled this turn", "warning")
        return
    prompt, system = out.event.prompt, out.event.system_prompt
    state.agent_started = True
    await rt.bus.emit("agent_start", AgentStart(prompt))
    out = await rt.bus.emit("before_request", BeforeRequest(prompt, len(rt.messages)))
    rt.append(UserMessage((TextPart(out.event.prompt), *state.attachments)))
    responses = 0
    while True:
        await rt.reload_if_changed()
        await _report_jobs(rt)
        await _keep_room(rt, state, system)
        message = await _call_model(rt, state, system)
        if message is None:
            return
        rt.append(message)
        responses += 1
        state.final_text = message.text
        calls = message.tool_calls
        if calls:
            await _dispatch(rt, state, calls)
        if message.stop_reason in STOPPING_FINISHES:
            state.stop = message.stop_reason
            return
        if not calls:
            return
        if responses >= rt.max_steps:
            state.stop = "max_steps"
            rt.notify(f"stopped after {rt.max_steps} model calls (max_steps)", "warning")
            return


async def _report_jobs(rt: Runtime) -> None:
    jobs = rt.jobs
    exits = jobs.take_exits()
    if not exits:
        return
    for record in exits:
        await rt.publish(record)
    rt.append(UserMessage.of(jobs.notice(exits)))


async def _keep_room(rt: Runtime, state: TurnState, system: str) -> None:
    """Compact before a model call that would not fit (or say so, when compaction is off)."""
    if not is_full(rt, system):
        return
    if rt.compaction.enabled:
        usage = await compact(rt, automatic=True)
        if usage is not None:
            state.usage = state.usage + usage
    elif not state.warned_full:
        state.warned_full = True
        rt.notify(
            "the context is full and automatic compaction is off (compaction.enabled: false)",
            "warning",
        )


async def _call_model(rt: Runtime, state: TurnState, system: str) -> AssistantMessage | None:
    """One model response, retried on retryable failures; `None` when the turn must end."""
    attempt = 0
    tools = tuple(t.spec for t in rt.tools.values())
    while True:
        attempt += 1
        state.step += 1
        messages = list(rt.messages)
        if rt.bus.has("context"):
            messages = (await rt.bus.emit("context", Context(messages, state.step))).event.messages
        request = Request(rt.model, system, tuple(messages), tools, None, rt.reasoning)
        builder = MessageBuilder()
        produced = False
        reasoning_started: float | None = None
        try:
            async for record in rt.provider.stream(request, rt.exchange):
                produced = True
                builder.add(record)
                await rt.publish(record)
                kind = type(record)
                if kind is TextDelta:
                    continue
                if kind is ReasoningDelta and reasoning_started is None:
                    reasoning_started = rt.clock()
                elif kind is TextDone:
                    await rt.bus.emit("message", MessageEvent("text", record.content))
                elif kind is ReasoningDone:
                    await rt.bus.emit("message", MessageEvent("reasoning", record.content))
                    started = reasoning_started if reasoning_started is not None else rt.clock()
                    elapsed = (rt.clock() - started) * 1000
                    reasoning_started = None
                    await rt.bus.emit("reasoning", ReasoningEvent(record.content, elapsed))
                elif kind is TokenUsageDone:
                    state.usage = state.usage + record.usage
                    rt.account(record.usage)
                    if rt.bus.has("usage"):
                        context = record.usage.input_tokens + record.usage.output_tokens
                        await rt.bus.emit("usage", usage_event(record.usage, context))
            return builder.message(rt)
        except asyncio.CancelledError:
            partial = builder.message(rt, cancelled=True)
            if partial.content:
                rt.append(partial)
                state.final_text = partial.text
            raise
        except ProviderError as err:
            if (
                err.kind == "context_overflow"
                and rt.compaction.enabled
                and not state.overflow_retried
            ):
                state.overflow_retried = True
                usage = await compact(rt, automatic=True)
                if usage is not None:
                    state.usage = state.usage + usage
                    continue
            if err.retryable and not produced and attempt < rt.retry.attempts:
                delay = rt.retry.delay(attempt, err)
                rt.notify(
                    f"{err.message} — retrying in {delay:.1f}s "
                    f"(attempt {attempt + 1} of {rt.retry.attempts})",
                    "warning",
                )
                await asyncio.sleep(delay)
                continue
            state.stop = "context_window" if err.kind == "context_overflow" else "error"
            state.error = err
            rt.notify(err.message, "error")
            await rt.bus.emit("error", ErrorEvent(err.message))
            return None


async def _dispatch(rt: Runtime, state: TurnState, calls: tuple[ToolCall, ...]) -> None:
    """Run the calls one at a time, in the model's order (SPEC §3)."""
    for index, call in enumerate(calls):
        try:
            await _run_call(rt, state, call)
        except asyncio.CancelledError:
            for rest in calls[index + 1 :]:
                await _after(rt, rest, {}, ToolResponse.error("cancelled", "[cancelled]"), 0.0)
            raise


def _parse_args(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def _run_call(rt: Runtime, state: TurnState, call: ToolCall) -> None:
    args = _parse_args(call.arguments)
    if args is None:
        problem = (
            f"ERROR: the arguments of {call.name} are not a JSON object: {call.arguments[:200]}"
        )
        await _after(rt, call, {}, ToolResponse.error("validation_error", problem), 0.0)
        return
    blocked = state.blocked_tools.get(call.name)
    if blocked is None and rt.bus.has("tool_call"):
        out = await rt.bus.emit("tool_call", ToolCallEvent(call.name, args, call.call_id))
        if out.failure is not None:
            blocked = f"ERROR: {out.failure}"
        elif out.stopped:
            blocked = f"ERROR: an extension blocked {call.name} for this turn."
            state.blocked_tools[call.name] = blocked
        elif out.event.blocked is not None:
            blocked = f"ERROR: {out.event.blocked}"
        else:
            args = out.event.input
    if blocked is not None:
        await _after(rt, call, args, ToolResponse.error("blocked", blocked), 0.0)
        return
    await rt.publish(BeforeToolCall(call.call_id, call.name, args, rt.clock()))
    await rt.bus.emit("tool_start", ToolStart(call.name, args, call.call_id))
    response, duration = await _execute(rt, call, args)
    if rt.bus.has("tool_end"):
        end = await rt.bus.emit(
            "tool_end",
            ToolEnd(
                call.name,
                args,
                call.call_id,
                not response.is_error,
                response.content,
                response,
                duration * 1000,
            ),
        )
        if end.event.result != response.content:
            response = msgspec.structs.replace(response, content=end.event.result)
    await _after(rt, call, args, response, duration)
    if response.error_type == "cancelled":
        raise asyncio.CancelledError


async def _execute(rt: Runtime, call: ToolCall, args: dict[str, Any]) -> tuple[ToolResponse, float]:
    """Run the tool itself; every failure becomes a tool error."""
    found = rt.tools.get(call.name)
    if found is None:
        names = ", ".join(sorted(rt.tools)) or "none"
        text = f"ERROR: unknown tool {call.name!r}. Available tools: {names}"
        return ToolResponse.error("unknown_tool", text), 0.0
    ctx = ToolContext(rt.cwd, rt.env, call.call_id, rt.home, rt.jobs)
    started = rt.clock()
    try:
        result = await found.run(args, ctx)
        response = result if isinstance(result, ToolResponse) else ToolResponse(str(result))
    except ToolError as exc:
        response = ToolResponse.error(exc.error_type, exc.message)
    except asyncio.CancelledError:
        response = ToolResponse.error("cancelled", "[cancelled]")
    except Exception as exc:  # a tool never raises into the loop
        response = ToolResponse.error("tool_failed", f"{type(exc).__name__}: {exc}")
    return response, rt.clock() - started


async def _after(
    rt: Runtime, call: ToolCall, args: dict[str, Any], response: ToolResponse, duration: float
) -> None:
    await rt.publish(AfterToolCall(call.call_id, call.name, args, response, rt.clock(), duration))
    content = (TextPart(response.content), *response.images)
    rt.append(ToolResultMessage(call.call_id, call.name, content, response.is_error))


async def _finish(rt: Runtime, state: TurnState) -> None:
    if state.agent_started:
        await rt.bus.emit("agent_end", AgentEnd(state.final_text))
    error = None
    if state.error is not None:
        error = {"kind": state.error.kind, "message": state.error.message}
    await end_turn(rt, TurnEnd(state.stop, state.usage, state.final_text, error))


async def end_turn(rt: Runtime, record: TurnEnd) -> None:
    """Run the `turn_end` and `idle` handlers (in the host's order), then stream `turn_end`
    last, so nothing a handler raises can follow it."""
    if rt.idle_before_turn_end:
        await rt.bus.emit("idle", Idle())
        await rt.bus.observe(record)
    else:
        await rt.bus.observe(record)
        await rt.bus.emit("idle", Idle())
    await rt.observe_notices()
    rt.emit(record)
