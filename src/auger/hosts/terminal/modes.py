"""The permission mode on the status line, and Shift-Tab cycling it (ask → accept-edits →
read-only → auto), through the `permissions` extension's own `/permissions MODE`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auger.config import PERMISSION_MODES

if TYPE_CHECKING:
    from auger.hosts.terminal.app import Terminal
    from auger.runtime import Runtime


def configured(runtime: Runtime) -> str:
    """The mode settings (and `--permission-mode`, `--yolo`) start the session in."""
    section = runtime.settings.get("permissions")
    mode = section.get("mode") if isinstance(section, dict) else None
    return mode if mode in PERMISSION_MODES else "ask"


def typed(term: Terminal, text: str) -> None:
    """Follow a `/permissions MODE` the user typed."""
    name, _, arg = text.strip().partition(" ")
    if name == "/permissions" and arg.strip() in PERMISSION_MODES:
        term.status.mode = arg.strip()


def cycle(term: Terminal) -> None:
    """Switch to the next mode, between turns."""
    runtime = term.runtime
    if runtime is None or term.busy:
        term.say_hint("the mode can be changed once this turn is over")
        return
    if "permissions" not in runtime.commands:
        term.say_hint("the permissions extension is disabled")
        return
    order = list(PERMISSION_MODES)
    now = term.status.mode if term.status.mode in order else "ask"
    mode = order[(order.index(now) + 1) % len(order)]
    term.status.mode = mode
    term.work(_drain(runtime.run_command("permissions", mode)))


async def _drain(records: Any) -> None:
    async for _ in records:  # the status line says it; no line in the conversation
        pass
