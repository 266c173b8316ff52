"""`/login [provider]` and `/logout provider`: a provider's API key kept in auth.json (0600)."""

from __future__ import annotations

from auger.config.credentials import remove_credential, save_credential
from auger.config.errors import ConfigError
from auger.config.paths import display
from auger.config.providers import key_variable, keyed_providers
from auger.engine.context import Context
from auger.extensions.registrar import Registrar


async def login(ctx: Context) -> None:
    """Ask for a provider's key (without echo) and keep it; the session uses it at once."""
    provider = ctx.args.strip()
    if not provider:
        provider = await ctx.ask("Log in to which provider?", keyed_providers()) or ""
        if not provider:
            await ctx.say("usage: /login PROVIDER (one of: " + ", ".join(keyed_providers()) + ")")
            return
    try:
        variable = key_variable(provider, ctx.settings)
    except ConfigError as exc:
        ctx.notify(str(exc), "error")
        return
    key = await ctx.ask(f"{variable} for {provider}:", secret=True)
    if not key or not key.strip():
        ctx.notify(
            "no key given — nothing was saved"
            + ("" if "ask" in ctx.capabilities else " (run `auger login PROVIDER` in a shell)"),
            "warning",
        )
        return
    path = save_credential(ctx.home, variable, key.strip())
    await ctx.runtime.refresh_credentials()
    await ctx.say(f"Saved {variable} to {display(path)}.")


async def logout(ctx: Context) -> None:
    """Forget a provider's key kept in auth.json."""
    provider = ctx.args.strip()
    if not provider:
        await ctx.say("usage: /logout PROVIDER")
        return
    try:
        variable = key_variable(provider, ctx.settings)
    except ConfigError as exc:
        ctx.notify(str(exc), "error")
        return
    removed = remove_credential(ctx.home, variable)
    await ctx.runtime.refresh_credentials()
    await ctx.say(f"Removed {variable}." if removed else f"No {variable} was saved.")


def extension(g: Registrar) -> None:
    """Registers `/login` and `/logout`."""
    g.command("login", login, "keep a provider's API key: /login [provider]")
    g.command("logout", logout, "forget a provider's API key: /logout provider")
