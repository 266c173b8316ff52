"""`/hotkeys`: the interactive terminal's keys."""

from __future__ import annotations

from auger.engine.context import Context

HOTKEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send the message"),
    ("Shift-Enter / Alt-Enter / Ctrl-J", "a new line"),
    ("Esc", "cancel the running turn"),
    ("Ctrl-C", "clear the input (twice: quit)"),
    ("Ctrl-D", "quit (on an empty line)"),
    ("Ctrl-O", "show the last tool call in full"),
    ("Ctrl-L", "pick a model"),
    ("Ctrl-S", "resume a session"),
    ("Up / Down", "input history"),
    ("Tab", "complete /commands and @files"),
    ("!command", "run a shell command"),
    ("@path", "attach a file"),
)


async def hotkeys(ctx: Context) -> None:
    """List the terminal's keys."""
    width = max(len(key) for key, _ in HOTKEYS)
    await ctx.say("\n".join(f"{key:<{width}}  {what}" for key, what in HOTKEYS))
