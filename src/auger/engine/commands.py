"""What a person typed: `/commands`, `!shell` commands, and prompts."""

from __future__ import annotations

import asyncio
import inspect

from auger.bus import Bus
from auger.engine.context import Context
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.engine.turn import end_turn, quiet_end, run_turn
from auger.events import Input, UserBash
from auger.llm.messages import UserMessage, UserPart
from auger.llm.usage import Usage
from auger.records import CommandOutput, StopReason, TurnEnd, TurnError
from auger.tools.base import ToolContext, ToolError, ToolResponse


async def run_command(
    state: AgentState, stream: Stream, bus: Bus, ctx: Context, name: str, args: str
) -> None:
    """Run command `name`; a command that ran no turn ends with a `turn_end` of its own."""
    run = ctx.for_command(name, args)
    stop: StopReason = "completed"
    error: TurnError | None = None
    state.ledger.begin_turn(Usage())
    command = state.registry.commands.get(name)
    if command is None:
        message = f"Unknown command: /{name}"
        stream.notify(message, "error")
        stop, error = "error", {"kind": "unknown_command", "message": message}
    else:
        try:
            result = command.handler(run)
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError:
            stop = "cancelled"
        except Exception as exc:  # a command's failure is reported, never propagated
            message = f"Command {name} failed: {exc}"
            stream.notify(message, "error")
            stop, error = "error", {"kind": "command", "message": message}
    if run.turns == 0 or error is not None:
        await end_turn(state, stream, bus, TurnEnd(stop, state.ledger.turn, "", error))


async def run_user_bash(state: AgentState, stream: Stream, bus: Bus, command: str) -> None:
    """`!command`: run it through the registered `bash` tool in the session's directory, show
    its output, and keep it as context."""
    await bus.emit(UserBash(command))
    tool = state.tools.get("bash")
    if tool is None:
        stream.notify("!command needs the bash tool, which this session does not have", "error")
        return
    place = state.place
    ctx = ToolContext(place.cwd, place.env, home=place.home, jobs=state.jobs, files=state.files)
    try:
        result = await tool.run({"command": command}, ctx)
    except ToolError as exc:
        result = ToolResponse.error(exc.error_type, exc.message)
    except Exception as exc:  # a tool never raises into the loop
        result = ToolResponse.error("tool_failed", f"{type(exc).__name__}: {exc}")
    text = result.content if isinstance(result, ToolResponse) else str(result)
    await stream.publish(CommandOutput(f"!{command}", text))
    state.conversation.append(
        UserMessage.of(f"I ran `{command}` in the shell. Its output:\n{text}")
    )


async def submit(
    state: AgentState,
    stream: Stream,
    bus: Bus,
    ctx: Context,
    text: str,
    attachments: tuple[UserPart, ...] = (),
) -> None:
    """Typed input: `input` handlers may replace or swallow it before it runs; a prompt takes
    `attachments` along."""
    out = await bus.emit(Input(text))
    if out.stopped:
        await end_turn(state, stream, bus, quiet_end())
        return
    text = out.event.text
    if text.startswith("!"):
        await run_user_bash(state, stream, bus, text[1:].strip())
        await end_turn(state, stream, bus, quiet_end())
    elif text.startswith("/"):
        name, _, args = text[1:].partition(" ")
        await run_command(state, stream, bus, ctx, name, args.strip())
    else:
        await run_turn(state, stream, bus, text, attachments)
