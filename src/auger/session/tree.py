"""The session tree as text, for `/tree`."""

from __future__ import annotations

from auger.llm.messages import AssistantMessage, UserMessage
from auger.session.entries import SUBAGENT_KIND, CustomEntry, Entry, MessageEntry
from auger.session.store import SessionFile


def describe(entry: Entry) -> str:
    """A one-line description of an entry."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return "user: " + " ".join(message.text.split())[:70]
        if isinstance(message, AssistantMessage):
            calls = ", ".join(c.name for c in message.tool_calls)
            text = " ".join(message.text.split())[:60]
            return "assistant: " + (text or f"[{calls}]")
        return f"{message.name} result" + (" (error)" if message.is_error else "")
    if isinstance(entry, CustomEntry) and entry.kind == SUBAGENT_KIND:
        data = entry.data if isinstance(entry.data, dict) else {}
        return f"sub-agent {data.get('agent_id')}: {data.get('stop_reason')}, {data.get('session')}"
    return entry.type


def choices(session: SessionFile) -> dict[str, str]:
    """The tree's messages as picker lines, newest first, each naming its entry id."""
    out: dict[str, str] = {}
    for row in reversed(session.tree()):
        if not isinstance(row.entry, MessageEntry):
            continue
        mark = "›" if row.entry.id == session.leaf_id else ("*" if row.on_branch else " ")
        out[f"{mark} {'  ' * row.depth}{describe(row.entry)} · {row.entry.id}"] = row.entry.id
    return out


def render(session: SessionFile) -> str:
    """Every entry, indented by branch depth; `*` marks the current branch, `>` the leaf."""
    lines = []
    for row in session.tree():
        mark = ">" if row.entry.id == session.leaf_id else ("*" if row.on_branch else " ")
        label = f" [{row.label}]" if row.label else ""
        lines.append(f"{mark} {'  ' * row.depth}{row.entry.id} {describe(row.entry)}{label}")
    return "\n".join(lines)
