"""The `find` tool: list files whose path matches a glob."""

from __future__ import annotations

from typing import Any

from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.paths import PathGlob
from auger.tools.search import list_files, search_target
from auger.tools.truncate import capped

DEFAULT_LIMIT = 1000


async def find(
    pattern: str, path: str | None = None, limit: int = DEFAULT_LIMIT, *, ctx: ToolContext
) -> str:
    """Find files by glob: "*.py" matches names at any depth, "src/**/*.ts" paths. Sorted, at
    most 1,000; skips what .gitignore ignores.
    """
    if limit < 1:
        raise ToolError("validation_error", "limit must be at least 1")
    target = search_target(ctx, path, files=False)
    found = await list_files(target, PathGlob(pattern), limit + 1, ctx)
    if not found:
        return "No files found."
    text = "\n".join(target.prefix + rel for rel in found[:limit])
    return capped(text, limit, len(found) > limit, "paths", "narrow the pattern or the path")


TOOL = tool(find)


def extension(g: Any) -> None:
    """Registers `find`."""
    g.tool(TOOL)
