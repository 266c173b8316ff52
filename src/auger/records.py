"""Every stream record of SPEC §1: the provider records, and the runtime's own."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

import msgspec

from auger.llm.records import (
    FINISH_REASONS,
    PROVIDER_RECORDS,
    FinishReasonDone,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
    plain,
)
from auger.llm.server_tools import SEARCH_RECORDS
from auger.llm.usage import Usage
from auger.tools.base import ToolResponse

__all__ = [
    "DECISIONS",
    "FINISH_REASONS",
    "PROVIDER_RECORDS",
    "RUNTIME_RECORDS",
    "STOP_REASONS",
    "AfterToolCall",
    "BeforeToolCall",
    "CommandOutput",
    "Compact",
    "FinishReasonDone",
    "JobExit",
    "Notify",
    "PermissionAnswer",
    "PermissionDecision",
    "PermissionRequest",
    "Plan",
    "ReasoningDelta",
    "ReasoningDone",
    "Record",
    "SessionEnd",
    "SessionStart",
    "SkillActivated",
    "SubagentEnd",
    "SubagentRecord",
    "SubagentStart",
    "TextDelta",
    "TextDone",
    "TodoList",
    "TokenUsageDone",
    "ToolCallDelta",
    "ToolCallDone",
    "TurnEnd",
    "UserText",
    "plain",
]

StopReason = Literal[
    "completed",
    "length",
    "max_steps",
    "guardrail_blocked",
    "context_window",
    "content_filter",
    "error",
    "cancelled",
]
STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))
NoticeLevel = Literal["info", "warning", "error"]
Decision = Literal["allow_once", "allow_session", "allow_always", "deny"]
DECISIONS: tuple[Decision, ...] = ("allow_once", "allow_session", "allow_always", "deny")
DecidedBy = Literal["rule", "mode", "user", "host"]


class SessionStart(Record, frozen=True):
    """Opens the first prompt of a new or restored session, and the first after a rebuild."""

    type: ClassVar[str] = "session_start"
    id: str
    reason: str
    root: str


class SessionEnd(Record, frozen=True):
    """Opens the first prompt after a rebuild (`reload`); `close` reaches only handlers."""

    type: ClassVar[str] = "session_end"
    reason: str
    root: str


class UserText(Record, frozen=True):
    """What the person sent, in a session's history (`Runtime.history()`); a live stream has
    none: the host sent the prompt itself."""

    type: ClassVar[str] = "user_text"
    text: str


class CommandOutput(Record, frozen=True):
    """A command called `ctx.say(text)`."""

    type: ClassVar[str] = "command_output"
    command: str
    text: str


class SkillActivated(Record, frozen=True):
    """A skill was run with `/skill:<name>`."""

    type: ClassVar[str] = "skill_activated"
    name: str


class Notify(Record, frozen=True):
    """A notice for the user; `level` is `info`, `warning` or `error`."""

    type: ClassVar[str] = "notify"
    message: str
    level: NoticeLevel = "info"


class BeforeToolCall(Record, frozen=True):
    """A tool is about to run with `args`; `at` is a monotonic timestamp in seconds."""

    type: ClassVar[str] = "before_tool_call"
    call_id: str
    tool: str
    args: dict[str, Any]
    at: float


class AfterToolCall(Record, frozen=True):
    """A tool call has finished; `duration` is how long the tool itself ran."""

    type: ClassVar[str] = "after_tool_call"
    call_id: str
    tool: str
    args: dict[str, Any]
    result: ToolResponse
    at: float
    duration: float


class JobExit(Record, frozen=True):
    """The model is told a background job exited."""

    type: ClassVar[str] = "job_exit"
    job_id: str
    command: str
    exit_status: int | None
    signal: int | None
    duration: float
    output_path: str


class PermissionRequest(Record, frozen=True):
    """A tool call waits for the user's permission (SPEC §6).

    `title` is one line a person understands; `rule` is the allow rule `allow_always` saves,
    `session_rules` what `allow_session` allows until the session ends, `scope` those rules in
    words. What the call would do: for `write`/`edit`, the file (`path`, absolute) and its text
    before (`old_text`, absent for a new file) and after (`new_text`); for `bash`, the working
    directory (`cwd`) and the commands the line runs (`runs`); for an MCP tool, its `server`.
    """

    type: ClassVar[str] = "permission_request"
    _omit_none: ClassVar[frozenset[str]] = frozenset(
        {"rule", "agent_id", "agent", "session_rules", "scope", "path", "old_text", "new_text"}
        | {"cwd", "runs", "server"}
    )
    call_id: str
    tool: str
    args: dict[str, Any]
    title: str
    options: tuple[Decision, ...] = DECISIONS
    rule: str | None = None
    agent_id: str | None = None
    """The sub-agent asking (SPEC §8), as the host is told; `None` for the main agent."""
    agent: str | None = None
    session_rules: tuple[str, ...] | None = None
    scope: str | None = None
    path: str | None = None
    old_text: str | None = None
    new_text: str | None = None
    cwd: str | None = None
    runs: tuple[str, ...] | None = None
    server: str | None = None


class PermissionAnswer(msgspec.Struct, frozen=True):
    """A host's full answer to a permission request: the decision and, for a `deny`, what the
    model is told to do instead (`feedback`, and the turn goes on) or that the turn stops."""

    decision: Decision
    feedback: str | None = None
    stop: bool = False

    @classmethod
    def of(cls, answer: Decision | PermissionAnswer) -> PermissionAnswer:
        """`answer` as a `PermissionAnswer` (a host may answer with the bare decision)."""
        return answer if isinstance(answer, PermissionAnswer) else cls(answer)


class PermissionDecision(Record, frozen=True):
    """How a permission question was decided, and by whom (a rule, the mode, the user, the
    host that could not ask)."""

    type: ClassVar[str] = "permission_decision"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"rule"})
    call_id: str
    decision: Decision
    by: DecidedBy
    rule: str | None = None


class Compact(Record, frozen=True):
    """The conversation was compacted."""

    type: ClassVar[str] = "compact"
    dropped: int
    kept: int
    automatic: bool


class TurnEnd(Record, frozen=True):
    """Always the last record of a prompt. In `to_dict()` the cost is `usage`'s `cost` key.

    `error` (`kind`, `message`), present only when the turn failed, says why;
    `unexecuted_calls`, present only when the final text holds calls that did not run, names
    their tools.
    """

    type: ClassVar[str] = "turn_end"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"error", "unexecuted_calls"})
    stop_reason: StopReason
    usage: Usage
    text: str = ""
    error: dict[str, str] | None = None
    unexecuted_calls: tuple[str, ...] | None = None
    """The tools the final text looks like it calls, written as text that never ran."""

    @property
    def cost(self) -> float | None:
        """The turn's price in USD, or `None` when the model is not priced."""
        return self.usage.cost


class SubagentStart(Record, frozen=True):
    """A child agent starts (SPEC §8): its id, agent name, the parent's call, its prompt."""

    type: ClassVar[str] = "subagent_start"
    agent_id: str
    name: str
    call_id: str
    prompt: str
    depth: int


class SubagentRecord(Record, frozen=True):
    """One record of a child agent, as it would stream on its own, wrapped for the parent."""

    type: ClassVar[str] = "subagent_record"
    agent_id: str
    record: Record


class SubagentEnd(Record, frozen=True):
    """A child agent ended; its usage is part of the parent's turn. `session` is the child's
    session file, when saved."""

    type: ClassVar[str] = "subagent_end"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"cost", "session"})
    agent_id: str
    stop_reason: StopReason
    usage: Usage
    cost: float | None = None
    session: str | None = None


TodoStatus = Literal["pending", "in_progress", "completed"]
TODO_STATUSES: tuple[TodoStatus, ...] = ("pending", "in_progress", "completed")


class TodoList(Record, frozen=True):
    """The model's plan, whole, each time it changes: `items` of `content` and `status`
    (`pending`, `in_progress`, `completed`)."""

    type: ClassVar[str] = "todo"
    items: tuple[dict[str, str], ...]


PlanDecision = Literal["proposed", "approved", "rejected"]


class Plan(Record, frozen=True):
    """A plan presented in plan mode (`proposed`), then how the user decided: `approved`
    (with the permission `mode` chosen) or `rejected` (with their `feedback`)."""

    type: ClassVar[str] = "plan"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"mode", "feedback"})
    plan: str
    decision: PlanDecision
    mode: str | None = None
    feedback: str | None = None


RUNTIME_RECORDS: tuple[type[Record], ...] = (
    SessionStart,
    SessionEnd,
    CommandOutput,
    SkillActivated,
    Notify,
    BeforeToolCall,
    AfterToolCall,
    PermissionRequest,
    PermissionDecision,
    JobExit,
    Compact,
    SubagentStart,
    SubagentRecord,
    SubagentEnd,
    TodoList,
    Plan,
    *SEARCH_RECORDS,
    TurnEnd,
)
"""The runtime's own record types, defined once (SPEC §1.2 and §6)."""
