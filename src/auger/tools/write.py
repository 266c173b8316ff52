"""The `write` tool: create or overwrite a file, atomically."""

from __future__ import annotations

from typing import Any

from auger.tools.base import ToolContext, ToolError, ToolResponse, tool
from auger.tools.files import write_file
from auger.tools.paths import display, os_error


async def write(path: str, content: str, *, ctx: ToolContext) -> ToolResponse | str:
    """Create or overwrite a file, and its parent directories. Prefer edit to change part of one."""
    target = ctx.resolve(path)
    shown = display(target, ctx.cwd)
    ctx.check_readable(target, shown)
    ctx.check_write(target, shown)
    if target.is_dir():
        raise ToolError("is_directory", f"{shown} is a directory")
    data = content.encode()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ToolError("not_a_directory", f"{shown}: a parent of it is a file") from None
    except OSError as exc:
        raise os_error(exc, shown) from None
    stamp = write_file(target, data, shown, ctx.files)
    if ctx.files is not None:
        ctx.files.saw(target, stamp)
    return f"Wrote {len(data)} bytes to {shown}"


TOOL = tool(write)


def extension(g: Any) -> None:
    """Registers `write`."""
    g.tool(TOOL)
