"""The prompt's own sections: the system prompt opens with the base prompt (the same bytes in
every project and every day); the date and the working directory go in the context message,
after the tools, with AGENTS.md and the skills."""

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
        # the tools name themselves in their schemas; only their absence needs saying
        return "" if tools() else "No tools are available in this session."

    base = Registry()
    base.prompts.update(base=BASE_PROMPT, tools=guidance)
    return base


def close(registry: Registry, cwd: Path, today: Callable[[], date] = date.today) -> None:
    """Add what the context message says of the day and the place (unless an extension
    registered its own sections of those names)."""
    for name, section in (
        ("date", lambda: f"Today's date is {today().isoformat()}."),
        ("cwd", f"The current working directory is {cwd}."),
    ):
        if name not in registry.prompts:
            registry.prompts[name] = section
            registry.context.add(name)
