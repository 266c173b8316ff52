"""The `todo` tool: the model keeps its plan as a checklist, sending the whole list each time.

Each call streams a `todo` record and saves the list in the session (a `todo` custom entry),
so hosts draw it, `/export` shows it, and a resumed session keeps it.
"""

from __future__ import annotations

from typing import Any

from auger.records import TODO_STATUSES, TodoList
from auger.tools.base import Tool, ToolContext, ToolError

NAME = "todo"
KIND = "todo"
"""The session's `custom` entry kind holding the list."""
MAX_ITEMS = 50
# lean: every request carries it; `checked` tells the model what an item lacks
ITEM = {"properties": {"content": {"type": "string"}, "status": {"enum": TODO_STATUSES}}}
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": ITEM}},
    "required": ["items"],
}
DESCRIPTION = "Your checklist for a multi-step task; send the whole list at each change."


def checked(raw: Any) -> tuple[dict[str, str], ...]:
    """The items the model sent, checked; a `ToolError` says what is wrong."""
    if not isinstance(raw, list):
        raise ToolError("validation_error", "todo: items must be a list")
    if len(raw) > MAX_ITEMS:
        raise ToolError("validation_error", f"todo: at most {MAX_ITEMS} items")
    items = []
    for n, item in enumerate(raw, 1):
        content = item.get("content") if isinstance(item, dict) else None
        status = item.get("status") if isinstance(item, dict) else None
        if not isinstance(content, str) or not content.strip():
            raise ToolError("validation_error", f"todo: item {n} has no content")
        if status not in TODO_STATUSES:
            raise ToolError(
                "validation_error", f"todo: item {n}'s status must be {', '.join(TODO_STATUSES)}"
            )
        items.append({"content": " ".join(content.split()), "status": status})
    return tuple(items)


def summary(items: tuple[dict[str, str], ...]) -> str:
    """What the model is told: the counts."""
    counts = {s: sum(i["status"] == s for i in items) for s in TODO_STATUSES}
    return "Todo list saved: " + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items())


def checklist(items: Any) -> str:
    """A saved list as a Markdown checklist (what `/export` shows)."""
    marks = {"completed": "[x]", "in_progress": "[~]"}
    rows = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
    return "\n".join(f"- {marks.get(str(i.get('status')), '[ ]')} {i.get('content')}" for i in rows)


async def run(args: dict[str, Any], ctx: ToolContext) -> str:
    """Check the list, stream it, save it."""
    items = checked(args.get("items"))
    agent = ctx.agent
    if agent is not None:
        agent.append_custom(KIND, list(items))
        await agent.publish(TodoList(items))
    return summary(items)


TOOL = Tool(NAME, DESCRIPTION, PARAMETERS, run)


def extension(g: Any) -> None:
    """Registers `todo`."""
    g.tool(TOOL)
