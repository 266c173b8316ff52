"""The built-in commands, registered like any extension's."""

from __future__ import annotations

from typing import Any

from auger.commands.context import CommandContext
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


def extension(g: Any) -> None:
    """Registers the built-in commands."""
    g.command("reload", reload, "re-import every extension")
    g.command("model", model, "show or switch the model: /model [provider/name] [--save]")
    g.command("help", help_, "list the commands")
    g.command("tools", tools, "list the tools the model may call")
    g.command("cost", cost, "show this session's tokens and cost")
