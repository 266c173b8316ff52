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
    """Find files whose path matches a glob, such as "*.py" (at any depth), "src/**/*.ts" or
    "*.{js,ts}". Prints the matching paths one a line, sorted, at most 1,000 by default; skips
    `.git` and whatever .gitignore ignores, includes hidden files. Use grep to search inside
    files, and ls to look at one directory.

    Args:
        pattern: The glob. Without a "/" it matches a file name at any depth; with one, a path
            from the searched directory.
        path: The directory to search (default: the working directory).
        limit: The most paths to show.
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
