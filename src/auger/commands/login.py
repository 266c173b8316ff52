"""`/login [provider]` and `/logout provider`: a sign-in (ChatGPT, Copilot) or a provider's API
key, kept in auth.json (0600)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from auger.config.credentials import remove_credential, save_credential, save_signin
from auger.config.errors import ConfigError
from auger.config.paths import display
from auger.config.providers import BUILTIN, key_variable, keyed_providers
from auger.engine.context import Context
from auger.extensions.registrar import Registrar

SIGNINS = sorted(name for name, row in BUILTIN.items() if row.get("signin"))


class _Screen:
    """A sign-in flow's lines as the session's messages."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def say(self, text: str) -> None:
        """Show a line."""
        await self.ctx.say(text)

    @asynccontextmanager
    async def waiting(self, label: str) -> AsyncIterator[None]:
        """Say what the flow waits for."""
        self.ctx.notify(label + "…")
        yield


async def _sign_in(ctx: Context, provider: str, device: bool) -> None:
    from auger.config.signin.flows import sign_in
    from auger.config.signin.web import SignInError

    try:
        entry = await sign_in(provider, ctx.env, device=device, screen=_Screen(ctx))
    except SignInError as exc:
        ctx.notify(str(exc), "error")
        return
    path = save_signin(ctx.home, provider, entry)
    await ctx.controls.refresh_credentials()
    await ctx.say(f"Signed in to {provider}; kept in {display(path)}.")


async def login(ctx: Context) -> None:
    """Ask for a provider's key (without echo) and keep it; the session uses it at once."""
    words = ctx.args.split()
    device = "--device" in words
    provider = next((w for w in words if w != "--device"), "")
    choices = SIGNINS + keyed_providers()
    if not provider:
        provider = await ctx.ask("Log in to which provider?", choices) or ""
        if not provider:
            await ctx.say("usage: /login PROVIDER (one of: " + ", ".join(choices) + ")")
            return
    if provider in SIGNINS:
        await _sign_in(ctx, provider, device)
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
    await ctx.controls.refresh_credentials()
    await ctx.say(f"Saved {variable} to {display(path)}.")


async def logout(ctx: Context) -> None:
    """Forget a provider's key kept in auth.json."""
    provider = ctx.args.strip()
    if not provider:
        await ctx.say("usage: /logout PROVIDER")
        return
    if provider in SIGNINS:
        from auger.config.signin.flows import sign_out

        said = await sign_out(provider, ctx.home, ctx.env)
        await ctx.controls.refresh_credentials()
        await ctx.say(
            f"Signed out of {provider}: {said}." if said else f"Not signed in to {provider}."
        )
        return
    try:
        variable = key_variable(provider, ctx.settings)
    except ConfigError as exc:
        ctx.notify(str(exc), "error")
        return
    removed = remove_credential(ctx.home, variable)
    await ctx.controls.refresh_credentials()
    await ctx.say(f"Removed {variable}." if removed else f"No {variable} was saved.")


def extension(g: Registrar) -> None:
    """Registers `/login` and `/logout`."""
    g.command("login", login, "sign in (chatgpt, copilot) or keep an API key: /login [provider]")
    g.command("logout", logout, "forget a sign-in or an API key: /logout provider")
