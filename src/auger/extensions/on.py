"""The typed `g.on`: one overload per event name (SPEC §2, and every stream record), so mypy
holds a handler to the event it receives and to what that event takes back, as pi-mono's
`on(event: "tool_call", handler: ExtensionHandler<ToolCallEvent, ToolCallEventResult>)` does.

Type information only: at run time `on` is the one method at the end, which refuses a name
no event has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeAlias, TypeVar, overload

from auger.bus import Handler
from auger.engine.registry import EVENT_NAMES, Registry
from auger.extensions.source import ExtensionError

if TYPE_CHECKING:
    import auger.events as ev
    import auger.llm.server_tools as st
    import auger.records as rec
    from auger.engine.context import Context

E = TypeVar("E", contravariant=True)
R = TypeVar("R")
HandlerOf: TypeAlias = "Callable[[E], R | Awaitable[R]] | Callable[[E, Context], R | Awaitable[R]]"
"""A handler of events `E` returning `R`: plain or async, taking `(event)` or `(event, ctx)`."""


class Subscriptions:
    """`g.on`, typed per event; the registrar this is part of says whose handlers they are and
    which registry they go in."""

    owner: str
    _into: Registry

    @overload
    def on(self, event: Literal["input"], handler: HandlerOf[ev.Input, ev.InputResult]) -> None: ...
    @overload
    def on(
        self, event: Literal["user_bash"], handler: HandlerOf[ev.UserBash, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["turn_start"], handler: HandlerOf[ev.TurnStart, ev.Observed]
    ) -> None: ...
    @overload
    def on(self, event: Literal["idle"], handler: HandlerOf[ev.Idle, ev.Observed]) -> None: ...
    @overload
    def on(
        self, event: Literal["message"], handler: HandlerOf[ev.MessageEvent, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["before_request"],
        handler: HandlerOf[ev.BeforeRequest, ev.BeforeRequestResult],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["tool_call"], handler: HandlerOf[ev.ToolCallEvent, ev.ToolCallResult]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["tool_start"], handler: HandlerOf[ev.ToolStart, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["tool_end"], handler: HandlerOf[ev.ToolEnd, ev.ToolEndResult]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["model_select"], handler: HandlerOf[ev.ModelSelect, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["usage"], handler: HandlerOf[ev.UsageEvent, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["reasoning"], handler: HandlerOf[ev.ReasoningEvent, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["error"], handler: HandlerOf[ev.ErrorEvent, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["context"], handler: HandlerOf[ev.Context, ev.ContextResult]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["before_provider_request"],
        handler: HandlerOf[ev.BeforeProviderRequest, ev.BeforeProviderRequestResult],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["after_provider_response"],
        handler: HandlerOf[ev.AfterProviderResponse, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["agent_start"], handler: HandlerOf[ev.AgentStart, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["agent_end"], handler: HandlerOf[ev.AgentEnd, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["before_agent_start"],
        handler: HandlerOf[ev.BeforeAgentStart, ev.BeforeAgentStartResult],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["session_before_compact"],
        handler: HandlerOf[ev.SessionBeforeCompact, ev.SessionBeforeCompactResult],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["session_before_fork"],
        handler: HandlerOf[ev.SessionBeforeFork, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["session_before_switch"],
        handler: HandlerOf[ev.SessionBeforeSwitch, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["session_shutdown"],
        handler: HandlerOf[ev.SessionShutdown, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["text_delta"], handler: HandlerOf[rec.TextDelta, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["text_done"], handler: HandlerOf[rec.TextDone, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["reasoning_delta"], handler: HandlerOf[rec.ReasoningDelta, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["reasoning_done"], handler: HandlerOf[rec.ReasoningDone, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["tool_call_delta"], handler: HandlerOf[rec.ToolCallDelta, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["tool_call_done"], handler: HandlerOf[rec.ToolCallDone, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["token_usage_done"],
        handler: HandlerOf[rec.TokenUsageDone, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["finish_reason_done"],
        handler: HandlerOf[rec.FinishReasonDone, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["session_start"], handler: HandlerOf[rec.SessionStart, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["session_end"], handler: HandlerOf[rec.SessionEnd, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["command_output"], handler: HandlerOf[rec.CommandOutput, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["skill_activated"], handler: HandlerOf[rec.SkillActivated, ev.Observed]
    ) -> None: ...
    @overload
    def on(self, event: Literal["notify"], handler: HandlerOf[rec.Notify, ev.Observed]) -> None: ...
    @overload
    def on(
        self,
        event: Literal["before_tool_call"],
        handler: HandlerOf[rec.BeforeToolCall, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["after_tool_call"], handler: HandlerOf[rec.AfterToolCall, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["permission_request"],
        handler: HandlerOf[rec.PermissionRequest, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["permission_decision"],
        handler: HandlerOf[rec.PermissionDecision, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["job_exit"], handler: HandlerOf[rec.JobExit, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["compact"], handler: HandlerOf[rec.Compact, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["subagent_start"], handler: HandlerOf[rec.SubagentStart, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["subagent_record"], handler: HandlerOf[rec.SubagentRecord, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["subagent_end"], handler: HandlerOf[rec.SubagentEnd, ev.Observed]
    ) -> None: ...
    @overload
    def on(self, event: Literal["todo"], handler: HandlerOf[rec.TodoList, ev.Observed]) -> None: ...
    @overload
    def on(self, event: Literal["plan"], handler: HandlerOf[rec.Plan, ev.Observed]) -> None: ...
    @overload
    def on(
        self, event: Literal["web_search_call"], handler: HandlerOf[st.WebSearchCall, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self,
        event: Literal["web_search_results"],
        handler: HandlerOf[st.WebSearchResults, ev.Observed],
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["citation"], handler: HandlerOf[st.Citation, ev.Observed]
    ) -> None: ...
    @overload
    def on(
        self, event: Literal["turn_end"], handler: HandlerOf[rec.TurnEnd, ev.Observed]
    ) -> None: ...
    def on(self, event: str, handler: Callable[..., object]) -> None:
        """Handle `event` (SPEC §2); an unknown name fails the extension's load."""
        if event not in EVENT_NAMES:
            raise ExtensionError(
                f"unknown event {event!r}; valid events: {', '.join(sorted(EVENT_NAMES))}"
            )
        self._into.handlers.setdefault(event, []).append(Handler.of(handler, self.owner))
