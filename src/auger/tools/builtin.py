"""The bundled coding tools, each an extension registered like any user extension."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

DEFAULT_TOOLS: tuple[str, ...] = (
    "read",
    "write",
    "edit",
    "bash",
    "grep",
    "find",
    "ls",
    "jobs",
    "web_fetch",
    "todo",
)


def extensions() -> list[tuple[str, Callable[[Any], None]]]:
    """(tool module name, its `extension` function) for every default tool, in order."""
    return [
        (name, importlib.import_module(f"auger.tools.{name}").extension) for name in DEFAULT_TOOLS
    ]
