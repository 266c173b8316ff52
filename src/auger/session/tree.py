"""The session tree as text, for `/tree`."""

from __future__ import annotations

from auger.llm.messages import AssistantMessage, TextPart, UserMessage
from auger.session.entries import SUBAGENT_KIND, CustomEntry, Entry, MessageEntry
from auger.session.store import SessionFile


def describe(entry: Entry) -> str:
    """A one-line description of an entry."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):  # what was typed, not the files attached after it
            typed = next((p.text for p in message.content if isinstance(p, TextPart)), "")
            return "user: " + " ".join(typed.split())[:70]
        if isinstance(message, AssistantMessage):
            calls = ", ".join(c.name for c in message.tool_calls)
            text = " ".join(message.text.split())[:60]
            return "assistant: " + (text or f"[{calls}]")
        return f"{message.name} result" + (" (error)" if message.is_error else "")
    if isinstance(entry, CustomEntry) and entry.kind == SUBAGENT_KIND:
        data = entry.data if isinstance(entry.data, dict) else {}
        return f"sub-agent {data.get('agent_id')}: {data.get('stop_reason')}, {data.get('session')}"
    return entry.type


def _kind(entry: Entry) -> str:
    """`said` (the user's message, a reply with text), `tool` (a call or a result, folded into
    a count) or `other` (the engine's context, a model change: left out)."""
    from auger.session.context import is_context

    if not isinstance(entry, MessageEntry) or is_context(entry.message):
        return "other"
    message = entry.message
    if isinstance(message, UserMessage):
        return "said"
    if isinstance(message, AssistantMessage) and message.text.strip():
        return "said"
    return "tool"


def choices(session: SessionFile) -> dict[str, str]:
    """The tree as picker lines, top down, each naming its entry id: the user's messages and
    the replies with text, branches indented under where they part (`└`), the tool calls
    between them folded into a count; `›` marks the leaf, `*` the current branch."""
    out: dict[str, str] = {}
    folded = 0
    leaf = next((e.id for e in reversed(session.branch()) if _kind(e) == "said"), None)
    for row in session.tree():
        kind = _kind(row.entry)
        if kind != "said":
            folded += kind == "tool"
            continue
        mark = "›" if row.entry.id == leaf else ("*" if row.on_branch else " ")
        indent = "  " * (row.depth - 1) + "└ " if row.depth else ""
        hidden = f" (+{folded} tool steps)" if folded else ""
        out[f"{mark} {indent}{describe(row.entry)}{hidden} · {row.entry.id}"] = row.entry.id
        folded = 0
    return out


def render(session: SessionFile) -> str:
    """Every entry, indented by branch depth; `*` marks the current branch, `>` the leaf."""
    lines = []
    for row in session.tree():
        mark = ">" if row.entry.id == session.leaf_id else ("*" if row.on_branch else " ")
        label = f" [{row.label}]" if row.label else ""
        lines.append(f"{mark} {'  ' * row.depth}{row.entry.id} {describe(row.entry)}{label}")
    return "\n".join(lines)
