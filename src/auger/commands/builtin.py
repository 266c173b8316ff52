"""The built-in commands, registered like any extension's."""

from __future__ import annotations

from typing import Any

from auger.commands.clipboard import copy
from auger.commands.context import CommandContext
from auger.commands.export import export
from auger.commands.hotkeys import hotkeys
from auger.commands.init import init
from auger.config.errors import ConfigError
from auger.llm.catalog import known_models


async def reload(ctx: CommandContext) -> None:
    """Re-import every extension."""
    if await ctx.runtime.reload():
        await ctx.say("Extensions reloaded.")


async def model(ctx: CommandContext) -> None:
    """Show or switch the model: `/model [provider/name] [--save]`."""
    words = ctx.args.split()
    save = "--save" in words
    specs = [w for w in words if w != "--save"]
    rt = ctx.runtime
    if not specs:
        listed = "\n".join(f"  {m}" for m in known_models())
        await ctx.say(f"Model: {rt.model.id}\nKnown models:\n{listed}")
        return
    try:
        await rt.set_model(specs[0])
    except ConfigError as exc:
        ctx.notify(str(exc), "error")
        return
    if save:
        from auger.config.settings import save_setting

        save_setting(rt.home, "model", rt.model.id)
    await ctx.say(f"Model: {rt.model.id}" + (" (saved)" if save else ""))


async def help_(ctx: CommandContext) -> None:
    """List the commands."""
    commands = ctx.runtime.registrations.commands.values()
    lines = [f"/{c.name:<10} {c.description}" for c in sorted(commands, key=lambda c: c.name)]
    await ctx.say("\n".join(lines))


async def tools(ctx: CommandContext) -> None:
    """List the tools the model may call."""
    rt = ctx.runtime
    lines = [f"{t.name:<12} {t.description.splitlines()[0]}" for t in rt.tools.values()]
    await ctx.say("\n".join(lines) or "No tools.")


async def cost(ctx: CommandContext) -> None:
    """Show this session's tokens and cost."""
    usage = ctx.runtime.usage_total
    price = "unknown (the model is not priced)" if usage.cost is None else f"${usage.cost:.4f}"
    await ctx.say(f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out · cost: {price}")


async def compact(ctx: CommandContext) -> None:
    """Summarise the older part of the conversation: `/compact [instructions]`."""
    if await ctx.runtime.compact(ctx.args or None):
        await ctx.say("Conversation compacted.")


async def new(ctx: CommandContext) -> None:
    """Start a new session."""
    if await ctx.runtime.new():
        await ctx.say("New session.")


async def clear(ctx: CommandContext) -> None:
    """Start over in a new, empty session (the current one stays saved)."""
    previous = ctx.runtime.session_id
    if await ctx.runtime.new():
        await ctx.say(f"Cleared: a new session (the previous one is {previous}).")


async def resume(ctx: CommandContext) -> None:
    """Resume a saved session: `/resume [id]` (without an id, list this directory's)."""
    from auger.session.paths import find_session, list_sessions
    from auger.session.store import SessionError

    rt = ctx.runtime
    if not ctx.args:
        rows = [f"{s.id}  {s.title[:60]}" for s in list_sessions(rt.home, rt.cwd)]
        await ctx.say("\n".join(rows) or "No saved sessions in this directory.")
        return
    try:
        path = find_session(rt.home, rt.cwd, ctx.args.strip())
    except SessionError as exc:
        ctx.notify(str(exc), "error")
        return
    if await rt.switch(path):
        await ctx.say(f"Resumed {rt.session_id} ({len(rt.messages)} messages).")


async def fork(ctx: CommandContext) -> None:
    """Continue in a new session from an entry: `/fork [entry id]` (default: here)."""
    path = await ctx.runtime.fork(ctx.args.strip() or None)
    if path is not None:
        await ctx.say(f"Forked into session {ctx.runtime.session_id}.")


async def tree(ctx: CommandContext) -> None:
    """Show this session's tree; `*` marks the current branch."""
    from auger.session.tree import render

    await ctx.say(render(ctx.runtime.conversation.session) or "The session is empty.")


async def name(ctx: CommandContext) -> None:
    """Name this session: `/name <title>`."""
    if not ctx.args.strip():
        ctx.notify("usage: /name <title>", "error")
        return
    ctx.runtime.set_name(ctx.args.strip())
    await ctx.say(f"Session named {ctx.args.strip()!r}.")


async def session(ctx: CommandContext) -> None:
    """Show the session's file, id, messages, tokens and cost."""
    rt = ctx.runtime
    usage = rt.usage_total
    price = "unknown" if usage.cost is None else f"${usage.cost:.4f}"
    path = rt.transcript_path or "not saved yet"
    await ctx.say(
        f"Session {rt.session_id}\nFile: {path}\nMessages: {len(rt.messages)}\n"
        f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out · cost: {price}"
    )


async def quit_(ctx: CommandContext) -> None:
    """Leave auger."""
    ctx.runtime.quit_requested = True


def extension(g: Any) -> None:
    """Registers the built-in commands."""
    g.command("reload", reload, "re-import every extension")
    g.command("model", model, "show or switch the model: /model [provider/name] [--save]")
    g.command("help", help_, "list the commands")
    g.command("tools", tools, "list the tools the model may call")
    g.command("cost", cost, "show this session's tokens and cost")
    g.command("compact", compact, "summarise the older conversation: /compact [instructions]")
    g.command("new", new, "start a new session")
    g.command("clear", clear, "clear the conversation: start a new session")
    g.command("init", init, "have the model study the project and write AGENTS.md")
    g.command("export", export, "write the session as HTML and Markdown: /export [file]")
    g.command("copy", copy, "copy the last reply to the clipboard")
    g.command("hotkeys", hotkeys, "list the terminal's keys")
    g.command("resume", resume, "resume a saved session: /resume [id]")
    g.command("fork", fork, "continue in a new session from an entry: /fork [entry]")
    g.command("tree", tree, "show this session's tree")
    g.command("name", name, "name this session: /name <title>")
    g.command("session", session, "show the session's file, messages, tokens and cost")
    g.command("quit", quit_, "leave auger")
