"""What auger's records and stored messages become in ACP: `session/update`s, tool kinds and
titles, and a prompt's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    Cost,
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    ToolCallLocation,
    UsageUpdate,
)

from auger.llm import arguments_or_empty
from auger.records import (
    AfterToolCall,
    BeforeToolCall,
    CommandOutput,
    Notify,
    ReasoningDelta,
    Record,
    TextDelta,
    TokenUsageDone,
    ToolCallDone,
    UserText,
)
from auger.runtime import Runtime

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
TOOL_KINDS: dict[str, ToolKind] = {
    "read": "read",
    "ls": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "jobs": "execute",
    "grep": "search",
    "find": "search",
}
StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
STOP_REASONS: dict[str, StopReason] = {
    "completed": "end_turn",
    "length": "max_tokens",
    "context_window": "max_tokens",
    "max_steps": "max_turn_requests",
    "content_filter": "refusal",
    "guardrail_blocked": "refusal",
    "cancelled": "cancelled",
}
SUMMARY_KEYS = ("path", "command", "pattern", "query", "url")


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of a tool: `read`, `edit`, `execute`, `search`, or `other`."""
    return TOOL_KINDS.get(name, "other")


def title(name: str, args: dict[str, Any]) -> str:
    """One line naming the call: the tool and its main argument."""
    for key in SUMMARY_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            line = value.splitlines()[0]
            return f"{name}: {line[:80]}"
    return name


def locations(args: dict[str, Any], cwd: Path) -> list[ToolCallLocation] | None:
    """The file a call is about, when it names one."""
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return None
    return [ToolCallLocation(path=str(cwd / Path(path).expanduser()))]


def record_update(record: Record, rt: Runtime) -> Any:
    """The `session/update` a record makes, if any (live, or from `Runtime.history()`)."""
    if isinstance(record, UserText):
        return update_user_message_text(record.text)
    if isinstance(record, TextDelta):
        return update_agent_message_text(record.content)
    if isinstance(record, ReasoningDelta):
        return update_agent_thought_text(record.content)
    if isinstance(record, ToolCallDone):
        args = arguments_or_empty(record.arguments)
        return start_tool_call(
            record.call_id,
            title(record.name, args),
            kind=tool_kind(record.name),
            status="pending",
            raw_input=args,
            locations=locations(args, rt.cwd),
        )
    if isinstance(record, BeforeToolCall):
        return update_tool_call(record.call_id, status="in_progress", raw_input=record.args)
    if isinstance(record, AfterToolCall):
        result = record.result
        return update_tool_call(
            record.call_id,
            status="failed" if result.is_error else "completed",
            content=[tool_content(text_block(result.content))],
            raw_output=result.to_dict(),
        )
    if isinstance(record, CommandOutput):
        text = record.text if record.text.endswith("\n") else record.text + "\n"
        return update_agent_message_text(text)
    if isinstance(record, Notify) and record.level != "info":
        return update_agent_message_text(f"\n[{record.level}] {record.message}\n")
    if isinstance(record, TokenUsageDone):
        total = rt.usage_total.cost
        return UsageUpdate(
            session_update="usage_update",
            used=record.usage.input_tokens + record.usage.output_tokens,
            size=rt.model.context_window,
            cost=None if total is None else Cost(amount=total, currency="USD"),
        )
    return None


def prompt_text(blocks: list[Any]) -> str:
    """The prompt's text: its text blocks, links to resources, and embedded text resources."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"[{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            text = getattr(block.resource, "text", None)
            if text is not None:
                parts.append(f"\n\n{block.resource.uri}:\n```\n{text}\n```\n")
    return "".join(parts)
