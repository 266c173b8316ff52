"""The one tool dispatch (SPEC §3): parse → `tool_call` handlers (the permission step among
them) → `before_tool_call` → `tool_start` → run → `tool_end` → `after_tool_call`."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from auger.bus import Bus
from auger.engine.state import Workplace
from auger.engine.stream import Stream
from auger.events import ToolCallEvent, ToolEnd, ToolStart
from auger.llm.arguments import parse_arguments
from auger.llm.messages import ImagePart, TextPart, ToolCall, ToolResultMessage
from auger.records import AfterToolCall, BeforeToolCall
from auger.tools.base import Tool, ToolContext, ToolError, ToolResponse


class Dispatch:
    """Runs a response's tool calls one at a time, in the model's order: the tools there are
    now (`tools`), run where `work` says, each result handed to `keep` (the conversation).
    `blocked` holds the tools an extension blocked with `False` for the rest of the turn."""

    def __init__(
        self,
        tools: Callable[[], Mapping[str, Tool]],
        work: Workplace,
        keep: Callable[[ToolResultMessage], None],
        stream: Stream,
        bus: Bus,
    ) -> None:
        self.tools = tools
        self.work = work
        self.keep = keep
        self.stream = stream
        self.bus = bus
        self.blocked: dict[str, str] = {}

    async def run(self, calls: tuple[ToolCall, ...]) -> None:
        """Every call gets exactly one `after_tool_call`, a cancel included."""
        for index, call in enumerate(calls):
            try:
                await self._one(call)
            except asyncio.CancelledError:
                for rest in calls[index + 1 :]:
                    await self._after(rest, {}, ToolResponse.error("cancelled", "[cancelled]"), 0.0)
                raise

    async def _one(self, call: ToolCall) -> None:
        try:
            args = parse_arguments(call.arguments)
        except ValueError as exc:
            problem = f"ERROR: the arguments of {call.name} are {exc}: {call.arguments[:200]}"
            await self._after(call, {}, ToolResponse.error("validation_error", problem), 0.0)
            return
        found = self.tools().get(call.name)
        if found is not None and (refused := found.refusal(args)):
            await self._after(call, args, refused, 0.0)
            return
        blocked = self.blocked.get(call.name)
        if blocked is None and self.bus.has(ToolCallEvent):
            # handlers get a copy, so changing it in place changes nothing: only a returned
            # dict replaces the input
            given = copy.deepcopy(args)
            out = await self.bus.emit(ToolCallEvent(call.name, given, call.call_id))
            if out.failure is not None:
                blocked = f"ERROR: {out.failure}"
            elif out.stopped:
                blocked = f"ERROR: an extension blocked {call.name} for this turn."
                self.blocked[call.name] = blocked
            elif out.event.blocked is not None:
                blocked = f"ERROR: {out.event.blocked}"
            elif out.event.input is not given:
                args = out.event.input
        if blocked is not None:
            await self._after(call, args, ToolResponse.error("blocked", blocked), 0.0)
            return
        clock = self.work.place.clock
        await self.stream.publish(BeforeToolCall(call.call_id, call.name, args, clock()))
        await self.bus.emit(ToolStart(call.name, args, call.call_id))
        response, duration = await self._execute(call, args)
        if self.bus.has(ToolEnd):
            end = await self.bus.emit(
                ToolEnd(
                    call.name,
                    args,
                    call.call_id,
                    not response.is_error,
                    response.content,
                    response,
                    duration * 1000,
                )
            )
            if end.event.result != response.content:
                response = msgspec.structs.replace(response, content=end.event.result)
        await self._after(call, args, response, duration)
        if response.error_type == "cancelled":
            raise asyncio.CancelledError

    async def _execute(self, call: ToolCall, args: dict[str, Any]) -> tuple[ToolResponse, float]:
        """Run the tool itself; every failure becomes a tool error."""
        tools, work = self.tools(), self.work
        found = tools.get(call.name)
        if found is None:
            names = ", ".join(sorted(tools)) or "none"
            text = f"ERROR: unknown tool {call.name!r}. Available tools: {names}"
            import difflib  # a near miss only: not at start-up

            if close := difflib.get_close_matches(call.name, tools, n=1, cutoff=0.4):
                text += f". Did you mean {close[0]!r}?"
            return ToolResponse.error("unknown_tool", text), 0.0
        place = work.place
        ctx = ToolContext(
            place.cwd,
            place.env,
            call.call_id,
            place.home,
            work.jobs,
            files=work.files,
            sandbox=work.sandbox,
            agent=self.bus.ctx,
        )
        started = place.clock()
        try:
            result = await found.run(args, ctx)
            response = result if isinstance(result, ToolResponse) else ToolResponse(str(result))
        except ToolError as exc:
            response = ToolResponse.error(exc.error_type, exc.message)
        except asyncio.CancelledError:
            response = ToolResponse.error("cancelled", "[cancelled]")
        except Exception as exc:  # a tool never raises into the loop
            response = ToolResponse.error("tool_failed", f"{type(exc).__name__}: {exc}")
        return response, place.clock() - started

    async def _after(
        self, call: ToolCall, args: dict[str, Any], response: ToolResponse, duration: float
    ) -> None:
        clock = self.work.place.clock
        await self.stream.publish(
            AfterToolCall(call.call_id, call.name, args, response, clock(), duration)
        )
        content: tuple[TextPart | ImagePart, ...] = (TextPart(response.content), *response.images)
        self.keep(
            ToolResultMessage(
                call.call_id, call.name, content, response.is_error, response.error_type
            )
        )
