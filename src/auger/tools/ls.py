"""The `ls` tool: list one directory."""

from __future__ import annotations

from typing import Any

from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.paths import Tree, os_error
from auger.tools.search import search_target
from auger.tools.truncate import capped

DEFAULT_LIMIT = 500


async def ls(path: str | None = None, limit: int = DEFAULT_LIMIT, *, ctx: ToolContext) -> str:
    """List a directory, directories marked "/", at most 500 entries; skips what .gitignore
    ignores.
    """
    if limit < 1:
        raise ToolError("validation_error", "limit must be at least 1")
    target = search_target(ctx, path, files=False)
    try:
        entries, ignored = Tree(target.root).entries()
    except OSError as exc:
        raise os_error(exc, target.prefix or ".") from None
    if not entries and not ignored:
        return "(empty directory)"
    text = "\n".join(name + ("/" if is_dir else "") for name, is_dir in entries[:limit])
    listing = capped(text, limit, len(entries) > limit, "entries", "use find to narrow it down")
    if not ignored:
        return listing
    notice = f"[{ignored} entr{'y' if ignored == 1 else 'ies'} ignored by .gitignore]"
    return f"{listing}\n\n{notice}" if entries else notice


TOOL = tool(ls)


def extension(g: Any) -> None:
    """Registers `ls`."""
    g.tool(TOOL)
