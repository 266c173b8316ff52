"""Extension events of SPEC §2: payloads, and what a handler's return value may change.

Each event is an immutable value. `apply(value)` returns the event as changed by a handler's
return value, or `None` when the value is not one this event takes — checked to the types of
what it holds, so nothing a handler returns can break the turn later; the bus then warns with
the event's `takes`. An event whose `settled` is true ends the chain (a blocked tool call).

Each event that takes a value names what its handler may return (`ToolCallResult`, …): the
types `g.on`'s overloads hold a handler to, so mypy checks a handler as `apply` will.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self, TypedDict

import msgspec

from auger.event import MESSAGES, fields, strings
from auger.event import Event as Event
from auger.event import Observed as Observed
from auger.llm.messages import Message
from auger.llm.usage import Usage

InputResult = str | Literal[False] | None
"""An `input` handler's return: a string replaces the text; `False` swallows it."""


class Input(Event, frozen=True):
    """What was typed. A string replaces it; `False` swallows it."""

    type: ClassVar[str] = "input"
    takes: ClassVar[str] = "a string or False"
    text: str

    def apply(self, value: object) -> Self | None:
        """A string replaces the text."""
        return msgspec.structs.replace(self, text=value) if isinstance(value, str) else None


class UserBash(Event, frozen=True):
    """A `!command` typed in the terminal."""

    type: ClassVar[str] = "user_bash"
    command: str


class TurnStart(Event, frozen=True):
    """A turn begins."""

    type: ClassVar[str] = "turn_start"
    text: str


class Idle(Event, frozen=True):
    """The runtime is waiting for input."""

    type: ClassVar[str] = "idle"


class MessageEvent(Event, frozen=True):
    """One finished block of the model's answer: `kind` is `text` or `reasoning`."""

    type: ClassVar[str] = "message"
    kind: Literal["text", "reasoning"]
    text: str


BeforeRequestResult = str | Literal[False] | None
"""A `before_request` handler's return: a string is appended to the prompt."""


class BeforeRequest(Event, frozen=True):
    """The turn's message is about to be stored; a string is appended to it."""

    type: ClassVar[str] = "before_request"
    takes: ClassVar[str] = "a string (appended to the prompt)"
    prompt: str
    messages: int

    def apply(self, value: object) -> Self | None:
        """A string is appended to the prompt."""
        if not isinstance(value, str):
            return None
        return msgspec.structs.replace(
            self, prompt=f"{self.prompt}\n\n{value}" if self.prompt else value
        )


ToolCallResult = str | Literal[False] | dict[str, Any] | None
"""A `tool_call` handler's return: a string or `False` blocks the call; a dict replaces `input`."""


class ToolCallEvent(Event, frozen=True):
    """A tool call is about to run. A string or `False` blocks it; a dict replaces `input`."""

    type: ClassVar[str] = "tool_call"
    guard: ClassVar[bool] = True
    takes: ClassVar[str] = "a string or False (blocks), or a dict with string keys (the input)"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"blocked"})
    name: str
    input: dict[str, Any]
    call_id: str
    blocked: str | None = None

    def apply(self, value: object) -> Self | None:
        """A string blocks; a dict replaces the input."""
        if isinstance(value, str):
            return msgspec.structs.replace(self, blocked=value)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return msgspec.structs.replace(self, input=value)
        return None

    @property
    def settled(self) -> bool:
        """The first block wins."""
        return self.blocked is not None


class ToolStart(Event, frozen=True):
    """A tool starts running."""

    type: ClassVar[str] = "tool_start"
    name: str
    input: dict[str, Any]
    call_id: str


ToolEndResult = str | Literal[False] | None
"""A `tool_end` handler's return: a string replaces what the model is told."""


class ToolEnd(Event, frozen=True):
    """A tool finished. A string replaces what the model is told it returned."""

    type: ClassVar[str] = "tool_end"
    takes: ClassVar[str] = "a string (the result the model is told)"
    name: str
    input: dict[str, Any]
    call_id: str
    ok: bool
    result: str
    detail: Any
    elapsed_ms: float

    def apply(self, value: object) -> Self | None:
        """A string replaces the result text."""
        return msgspec.structs.replace(self, result=value) if isinstance(value, str) else None


class ModelSelect(Event, frozen=True):
    """A model was chosen."""

    type: ClassVar[str] = "model_select"
    model: str
    variant: str | None = None


class UsageEvent(Event, frozen=True):
    """The usage of one model response, and how many tokens the next request will carry."""

    type: ClassVar[str] = "usage"
    input: int
    output: int
    cached: int
    cost: float | None
    context_tokens: int


class ReasoningEvent(Event, frozen=True):
    """A finished reasoning block and how long it took."""

    type: ClassVar[str] = "reasoning"
    text: str
    elapsed_ms: float


class ErrorEvent(Event, frozen=True):
    """Something failed."""

    type: ClassVar[str] = "error"
    message: str


ContextResult = list[Message] | Literal[False] | None
"""A `context` handler's return: a list of messages replaces what this call sends."""


class Context(Event, frozen=True):
    """The messages one model call is about to send (a copy). A list replaces them."""

    type: ClassVar[str] = "context"
    takes: ClassVar[str] = "a list of messages (UserMessage, AssistantMessage, ToolResultMessage)"
    messages: list[Message]
    step: int

    def apply(self, value: object) -> Self | None:
        """A list of messages replaces what this call sends."""
        if not isinstance(value, list) or not all(isinstance(m, MESSAGES) for m in value):
            return None
        return msgspec.structs.replace(self, messages=list(value))


class RequestChange(TypedDict, total=False):
    """What a `before_provider_request` handler changes: `headers` merge over, `body` replaces
    (name at least one)."""

    headers: dict[str, str]
    body: dict[str, Any]


BeforeProviderRequestResult = RequestChange | Literal[False] | None
"""A `before_provider_request` handler's return."""


class BeforeProviderRequest(Event, frozen=True):
    """An HTTP request to a provider. A dict's `headers` merge over; its `body` replaces."""

    type: ClassVar[str] = "before_provider_request"
    takes: ClassVar[str] = 'a dict with "headers" (strings) or "body" (a dict)'
    url: str
    headers: dict[str, str]
    body: dict[str, Any]

    def apply(self, value: object) -> Self | None:
        """Merge headers, replace the body."""
        if not isinstance(value, dict) or not ({"headers", "body"} & value.keys()):
            return None
        headers, body = value.get("headers") or {}, value.get("body", self.body)
        if not strings(headers) or not isinstance(body, dict):
            return None
        return msgspec.structs.replace(self, headers=self.headers | headers, body=body)


class AfterProviderResponse(Event, frozen=True):
    """A provider answered."""

    type: ClassVar[str] = "after_provider_response"
    url: str
    status: int
    headers: dict[str, str]


class AgentStart(Event, frozen=True):
    """The agent starts working on a prompt."""

    type: ClassVar[str] = "agent_start"
    prompt: str


class AgentEnd(Event, frozen=True):
    """The agent finished a prompt."""

    type: ClassVar[str] = "agent_end"
    text: str


class AgentStartChange(TypedDict, total=False):
    """What a `before_agent_start` handler replaces (name at least one)."""

    prompt: str
    system_prompt: str


BeforeAgentStartResult = str | AgentStartChange | Literal[False] | None
"""A `before_agent_start` handler's return: a string replaces the prompt; `False` cancels."""


class BeforeAgentStart(Event, frozen=True):
    """A string replaces the prompt; `False` cancels the turn; a dict replaces either field."""

    type: ClassVar[str] = "before_agent_start"
    takes: ClassVar[str] = 'a string, False, or a dict with a string "prompt" or "system_prompt"'
    prompt: str
    system_prompt: str

    def apply(self, value: object) -> Self | None:
        """Replace the prompt or the system prompt."""
        if isinstance(value, str):
            return msgspec.structs.replace(self, prompt=value)
        if fields(value, ("prompt", "system_prompt"), optional=False):
            return msgspec.structs.replace(
                self,
                prompt=value.get("prompt", self.prompt),
                system_prompt=value.get("system_prompt", self.system_prompt),
            )
        return None


class CompactChange(TypedDict, total=False):
    """What a `session_before_compact` handler supplies (name at least one)."""

    summary: str | None
    instruction: str | None


SessionBeforeCompactResult = CompactChange | Literal[False] | None
"""A `session_before_compact` handler's return: `False` cancels the compaction."""


class SessionBeforeCompact(Event, frozen=True):
    """Compaction is about to run. `False` cancels; a dict supplies `summary` or `instruction`."""

    type: ClassVar[str] = "session_before_compact"
    takes: ClassVar[str] = 'False, or a dict with a string "summary" or "instruction"'
    _omit_none: ClassVar[frozenset[str]] = frozenset({"summary"})
    automatic: bool
    instruction: str | None = None
    summary: str | None = None

    def apply(self, value: object) -> Self | None:
        """Supply a summary or an instruction."""
        if fields(value, ("summary", "instruction"), optional=True):
            return msgspec.structs.replace(
                self,
                summary=value.get("summary", self.summary),
                instruction=value.get("instruction", self.instruction),
            )
        return None


class SessionBeforeFork(Event, frozen=True):
    """A fork is about to happen; `False` cancels it."""

    type: ClassVar[str] = "session_before_fork"
    takes: ClassVar[str] = "False (cancels the fork)"
    id: str
    at: str | None = None


class SessionBeforeSwitch(Event, frozen=True):
    """A switch to another session is about to happen; `False` cancels it."""

    type: ClassVar[str] = "session_before_switch"
    takes: ClassVar[str] = "False (cancels the switch)"
    from_: str
    to: str

    def to_dict(self) -> dict[str, Any]:
        """`from_` is `from` in JSON."""
        return {"type": self.type, "from": self.from_, "to": self.to}


class SessionShutdown(Event, frozen=True):
    """The process is about to exit; awaited."""

    type: ClassVar[str] = "session_shutdown"
    root: str


EVENT_TYPES: tuple[type[Event], ...] = (
    Input,
    UserBash,
    TurnStart,
    Idle,
    MessageEvent,
    BeforeRequest,
    ToolCallEvent,
    ToolStart,
    ToolEnd,
    ModelSelect,
    UsageEvent,
    ReasoningEvent,
    ErrorEvent,
    Context,
    BeforeProviderRequest,
    AfterProviderResponse,
    AgentStart,
    AgentEnd,
    BeforeAgentStart,
    SessionBeforeCompact,
    SessionBeforeFork,
    SessionBeforeSwitch,
    SessionShutdown,
)


def usage_event(usage: Usage, context_tokens: int) -> UsageEvent:
    """The `usage` event of one response."""
    return UsageEvent(
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens or 0,
        usage.cost,
        context_tokens,
    )
