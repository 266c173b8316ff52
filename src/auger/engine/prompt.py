"""The system prompt's own sections, ordered stable → volatile: the base prompt and the tool
guidance open it (the same bytes in every project), what varies by project and day closes it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path

from auger.engine.registry import Registry
from auger.tools.base import Tool

BASE_PROMPT = (
    "You are auger, a coding agent working in the user's project. Use the tools to read, "
    "search, change and run things rather than guessing; keep going until the task is done "
    "or you need the user. Be concise: say what you did and what you found."
)


def opening(tools: Callable[[], Mapping[str, Tool]]) -> Registry:
    """A registry holding the sections that open the prompt (extensions add theirs after)."""

    def guidance() -> str:
        names = list(tools())
        if not names:
            return "No tools are available in this session."
        return "Tools available: " + ", ".join(names) + "."

    base = Registry()
    base.prompts.update(base=BASE_PROMPT, tools=guidance)
    return base


def close(registry: Registry, cwd: Path, today: Callable[[], date] = date.today) -> None:
    """Add the sections that close the prompt: the date and the working directory (unless an
    extension registered its own)."""
    registry.prompts.setdefault("date", lambda: f"Today's date is {today().isoformat()}.")
    registry.prompts.setdefault("cwd", f"The current working directory is {cwd}.")
