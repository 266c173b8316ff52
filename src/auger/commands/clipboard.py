"""`/copy`: the last reply to the system clipboard, through whichever clipboard tool exists;
with none (over ssh, in tmux), through the terminal itself (a `clipboard_copy` record the
terminal host sends as OSC 52)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping
from typing import ClassVar

from auger.engine.context import Context
from auger.llm.messages import AssistantMessage
from auger.llm.records import Record


class ClipboardCopy(Record, frozen=True):
    """Text for the clipboard of the terminal the user sits at (OSC 52), for hosts that can."""

    type: ClassVar[str] = "clipboard_copy"
    text: str


# (program and arguments, the environment variable that must be set for it to work, if any)
TOOLS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("wl-copy",), "WAYLAND_DISPLAY"),
    (("xclip", "-selection", "clipboard"), "DISPLAY"),
    (("xsel", "--clipboard", "--input"), "DISPLAY"),
    (("pbcopy",), None),
    (("clip.exe",), None),
)


def clipboard_command(env: Mapping[str, str]) -> list[str] | None:
    """The first clipboard tool that is on `PATH` and can reach a display."""
    for argv, needs in TOOLS:
        found = shutil.which(argv[0], path=env.get("PATH"))
        if found and (needs is None or env.get(needs)):
            return [found, *argv[1:]]
    return None


async def copy_text(text: str, env: Mapping[str, str]) -> str | None:
    """Put `text` on the clipboard; `None` on success, else why not."""
    command = clipboard_command(env)
    if command is None:
        return "no clipboard tool found (wl-copy, xclip, xsel, pbcopy or clip.exe)"
    try:
        proc = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
        )
        _, err = await asyncio.wait_for(proc.communicate(text.encode()), 10)
    except (OSError, TimeoutError) as exc:
        return f"{command[0]} failed: {exc}"
    if proc.returncode != 0:
        return f"{command[0]} failed: {err.decode(errors='replace').strip() or proc.returncode}"
    return None


async def copy(ctx: Context) -> None:
    """Copy the last reply to the clipboard."""
    reply = next(
        (m.text for m in reversed(ctx.messages) if isinstance(m, AssistantMessage) and m.text),
        None,
    )
    if reply is None:
        await ctx.say("Nothing to copy: there is no reply yet.")
        return
    problem = await copy_text(reply, ctx.env)
    if problem is not None and "clipboard" in ctx.capabilities:
        ctx.emit(ClipboardCopy(reply))
        await ctx.say(
            f"Sent the last reply ({len(reply):,} characters) to the terminal's clipboard "
            f"(OSC 52: {problem})."
        )
        return
    if problem is not None:
        await ctx.say(f"Not copied: {problem}.")
        return
    await ctx.say(f"Copied the last reply ({len(reply):,} characters).")
