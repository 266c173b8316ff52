"""Running what a person typed: `/commands`, `!shell` commands, and prompts."""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING

from auger.commands.context import CommandContext
from auger.events import Input, UserBash
from auger.llm.messages import UserMessage
from auger.llm.usage import Usage
from auger.loop import end_turn, run_turn
from auger.records import CommandOutput, TurnEnd
from auger.tools.base import ToolContext

if TYPE_CHECKING:
    from auger.runtime import Runtime


async def run_command(rt: Runtime, name: str, args: str) -> None:
    """Run command `name`; a command that ran no turn ends with a `turn_end` of its own."""
    ctx = CommandContext(rt, name, args)
    stop, error = "completed", None
    command = rt.registrations.commands.get(name)
    if command is None:
        message = f"Unknown command: /{name}"
        rt.notify(message, "error")
        stop, error = "error", {"kind": "unknown_command", "message": message}
    else:
        try:
            result = command.handler(ctx)
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError:
            stop = "cancelled"
        except Exception as exc:  # a command's failure is reported, never propagated
            message = f"Command {name} failed: {exc}"
            rt.notify(message, "error")
            stop, error = "error", {"kind": "command", "message": message}
    if ctx.turns == 0 or error is not None:
        await end_turn(rt, TurnEnd(stop, Usage(), "", error))


async def run_user_bash(rt: Runtime, command: str) -> None:
    """`!command`: run it in the session's directory, show its output, and keep it as context."""
    from auger.tools.bash import TOOL

    await rt.bus.emit("user_bash", UserBash(command))
    context = ToolContext(rt.cwd, rt.env, home=rt.home, jobs=rt.jobs)  # spills into its dir
    result = await TOOL.run({"command": command}, context)
    text = result if isinstance(result, str) else result.content
    await rt.publish(CommandOutput(f"!{command}", text))
    rt.append(UserMessage.of(f"I ran `{command}` in the shell. Its output:\n{text}"))


async def submit(rt: Runtime, text: str) -> None:
    """Typed input: `input` handlers may replace or swallow it before it runs."""
    out = await rt.bus.emit("input", Input(text))
    if out.stopped:
        await end_turn(rt, TurnEnd("completed", Usage(), ""))
        return
    text = out.event.text
    if text.startswith("!"):
        await run_user_bash(rt, text[1:].strip())
        await end_turn(rt, TurnEnd("completed", Usage(), ""))
    elif text.startswith("/"):
        name, _, args = text[1:].partition(" ")
        await run_command(rt, name, args.strip())
    else:
        await run_turn(rt, text)
