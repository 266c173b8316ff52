"""The built-in commands, registered like any extension's."""

from __future__ import annotations

from auger.commands.clipboard import copy
from auger.commands.export import export
from auger.commands.hotkeys import hotkeys
from auger.commands.init import init
from auger.config.errors import ConfigError
from auger.engine.context import Context
from auger.extensions.registrar import Registrar
from auger.llm.catalog import known_models
from auger.session.context import is_context


async def reload(ctx: Context) -> None:
    """Re-import every extension."""
    if await ctx.controls.reload():
        await ctx.say("Extensions reloaded.")


async def model(ctx: Context) -> None:
    """Show or switch the model: `/model [provider/name] [--save]`."""
    words = ctx.args.split()
    save = "--save" in words
    specs = [w for w in words if w != "--save"]
    if not specs:
        listed = "\n".join(f"  {m}" for m in known_models())
        await ctx.say(f"Model: {ctx.model}\nKnown models:\n{listed}")
        return
    try:
        await ctx.controls.set_model(specs[0])
    except ConfigError as exc:
        ctx.notify(str(exc), "error")
        return
    if save:
        from auger.config.settings import save_setting

        save_setting(ctx.home, "model", ctx.model)
    await ctx.say(f"Model: {ctx.model}" + (" (saved)" if save else ""))


async def help_(ctx: Context) -> None:
    """List the commands."""
    commands = ctx.commands.values()
    lines = [f"/{c.name:<10} {c.description}" for c in sorted(commands, key=lambda c: c.name)]
    await ctx.say("\n".join(lines))


async def tools(ctx: Context) -> None:
    """List the tools the model may call."""
    lines = [f"{t.name:<12} {t.description.splitlines()[0]}" for t in ctx.tools.values()]
    await ctx.say("\n".join(lines) or "No tools.")


async def cost(ctx: Context) -> None:
    """Show this session's tokens and cost."""
    usage = ctx.usage
    price = "unknown (the model is not priced)" if usage.cost is None else f"${usage.cost:.4f}"
    await ctx.say(f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out · cost: {price}")


async def compact(ctx: Context) -> None:
    """Summarise the older part of the conversation: `/compact [instructions]`."""
    if await ctx.controls.compact(ctx.args or None):
        await ctx.say("Conversation compacted.")


async def new(ctx: Context) -> None:
    """Start a new session."""
    if await ctx.controls.new():
        await ctx.say("New session.")


async def clear(ctx: Context) -> None:
    """Start over in a new, empty session (the current one stays saved)."""
    previous = ctx.session_id
    if await ctx.controls.new():
        await ctx.say(f"Cleared: a new session (the previous one is {previous}).")


async def resume(ctx: Context) -> None:
    """Resume a saved session: `/resume [id]` (without an id, list this directory's)."""
    from auger.session.paths import find_session, list_sessions
    from auger.session.store import SessionError

    if not ctx.args:
        rows = [f"{s.id}  {s.title[:60]}" for s in list_sessions(ctx.home, ctx.cwd)]
        await ctx.say("\n".join(rows) or "No saved sessions in this directory.")
        return
    try:
        path = find_session(ctx.home, ctx.cwd, ctx.args.strip())
    except SessionError as exc:
        ctx.notify(str(exc), "error")
        return
    if await ctx.controls.switch(path):
        await ctx.say(f"Resumed {ctx.session_id} ({len(ctx.messages)} messages).")


async def fork(ctx: Context) -> None:
    """Continue in a new session from an entry: `/fork [entry id]` (default: here)."""
    path = await ctx.controls.fork(ctx.args.strip() or None)
    if path is not None:
        await ctx.say(f"Forked into session {ctx.session_id}.")


async def tree(ctx: Context) -> None:
    """Move about this session's tree: pick an entry to continue from (`/tree ID` goes there;
    a host that cannot ask shows the tree, `*` marking the current branch)."""
    from auger.session.tree import choices, render

    session = ctx.session
    if ctx.args.strip():
        target = ctx.args.strip()
    elif "ask" in ctx.capabilities and (options := choices(session)):
        picked = await ctx.ask("Continue from which entry?", list(options))
        if picked is None:
            return
        target = options[picked]
    else:
        await ctx.say(render(session) or "The session is empty.")
        return
    if not any(entry.id == target for entry in session.entries):
        ctx.notify(f"no entry {target!r} in this session (/tree lists them)", "error")
        return
    await ctx.controls.navigate(target)
    await ctx.say(f"Continuing from {target}.")


async def name(ctx: Context) -> None:
    """Name this session: `/name <title>`."""
    if not ctx.args.strip():
        ctx.notify("usage: /name <title>", "error")
        return
    ctx.controls.set_name(ctx.args.strip())
    await ctx.say(f"Session named {ctx.args.strip()!r}.")


async def session(ctx: Context) -> None:
    """Show the session's file, id, messages, tokens and cost."""
    usage = ctx.usage
    price = "unknown" if usage.cost is None else f"${usage.cost:.4f}"
    path = ctx.transcript_path or "not saved yet"
    # the context message is the engine's, not part of what was said (nor in `auger sessions`)
    said = [m for m in ctx.messages if not is_context(m)]
    await ctx.say(
        f"Session {ctx.session_id}\nFile: {path}\nMessages: {len(said)}\n"
        f"Tokens: {usage.input_tokens:,} in, {usage.output_tokens:,} out · cost: {price}"
    )


async def quit_(ctx: Context) -> None:
    """Leave auger (the host ends the session once this command is over)."""
    ctx.quit()


def extension(g: Registrar) -> None:
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
    g.command("exit", quit_, "leave auger")
