"""What a permission question shows of a `write` or `edit`: the file's text before and after."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from auger.tools.base import ToolError
from auger.tools.edit import replace
from auger.tools.files import is_binary, open_regular, read_whole

PREVIEW_BYTES = 1 << 20
"""The largest file shown before and after; a bigger one is asked about by its name alone."""


def _current(path: Path) -> str | None:
    """The file's text; `None` when it does not exist. `ToolError` when it cannot be shown."""
    if not path.exists():
        return None
    with open_regular(path, str(path)) as file:
        data = read_whole(file, str(path), PREVIEW_BYTES)
    if is_binary(data):
        raise ToolError("binary_file", f"{path} is a binary file")
    return data.decode("utf-8", "replace").removeprefix("\ufeff").replace("\r\n", "\n")


def _edits(args: Mapping[str, Any]) -> list[tuple[str, str, bool]]:
    items = args.get("edits") or [args]
    out = []
    for item in items:
        old, new = item["old_string"], item["new_string"]
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            raise TypeError("not an edit")
        out.append((old, new, item.get("replace_all") is True))
    return out


def file_change(
    tool: str, args: Mapping[str, Any], cwd: Path
) -> tuple[Path, str | None, str] | None:
    """The file a `write` or `edit` changes, its text now (`None`: a new file) and after the
    call; `None` when that cannot be known beforehand (bad arguments, a binary or huge file)."""
    raw = args.get("path")
    if tool not in ("write", "edit") or not isinstance(raw, str) or not raw:
        return None
    path = Path(raw).expanduser()
    path = path if path.is_absolute() else cwd / path
    try:
        old = _current(path)
        if tool == "write":
            content = args.get("content")
            return (path, old, content) if isinstance(content, str) else None
        if old is None:
            return None
        new, _, _ = replace(old, _edits(args))
    except (ToolError, OSError, KeyError, TypeError, AttributeError):
        return None
    return path, old, new
