"""The prompt's own sections: the system prompt opens with the base prompt (the same bytes in
every project and every day); the date and the working directory go in the context message,
after the tools, with AGENTS.md and the skills."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path

from auger.engine.registry import Registry
from auger.llm.provider import Provider
from auger.tools.base import Tool

BASE_PROMPT = (
    "You are auger, a coding agent working in the user's project. Use the tools to read, "
    "search, change and run things rather than guessing; keep going until the task is done "
    "or you need the user. Be concise: say what you did and what you found."
)


SMALL_MODEL = (
    "To act, call a tool: never describe a call or show one as an example instead. The user's "
    "files are in the working directory: look at them with the tools, and read a file before "
    "you edit it."
)
"""What a small model is told besides (`small_model_guidance`)."""


def small_model(provider: Provider) -> bool:
    """Whether `provider` most likely serves a small model: its compat's `small_model_guidance`
    says so, or else its text-call fallback is on (a local server's default)."""
    compat = getattr(provider, "compat", None)
    chosen = getattr(compat, "small_model_guidance", None)
    return bool(getattr(compat, "tool_call_fallback", False) if chosen is None else chosen)


def opening(tools: Callable[[], Mapping[str, Tool]], provider: Callable[[], Provider]) -> Registry:
    """A registry holding the sections that open the prompt (extensions add theirs after)."""

    def guidance() -> str:
        # the tools name themselves in their schemas; only their absence needs saying
        if not tools():
            return "No tools are available in this session."
        return SMALL_MODEL if small_model(provider()) else ""

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
