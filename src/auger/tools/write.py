"""The `write` tool: create or overwrite a file, atomically."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from auger.tools.base import ToolContext, ToolError, ToolResponse, tool
from auger.tools.paths import display, os_error


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file in the same directory and `os.replace`, so
    the file is never seen half-written; an existing file keeps its permissions."""
    target = Path(os.path.realpath(path))  # write through a symlink, not over it
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    temp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


async def write(path: str, content: str, *, ctx: ToolContext) -> ToolResponse | str:
    """Create or overwrite a file, and its parent directories. Prefer edit to change part of one."""
    target = ctx.resolve(path)
    shown = display(target, ctx.cwd)
    if target.is_dir():
        raise ToolError("is_directory", f"{shown} is a directory")
    data = content.encode()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, data)
    except FileExistsError:
        raise ToolError("not_a_directory", f"{shown}: a parent of it is a file") from None
    except OSError as exc:
        raise os_error(exc, shown) from None
    return f"Wrote {len(data)} bytes to {shown}"


TOOL = tool(write)


def extension(g: Any) -> None:
    """Registers `write`."""
    g.tool(TOOL)
