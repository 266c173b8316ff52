"""Running a sign-in flow to its end, for any host (the browser opened, or the device code
shown when there is none; the entry to keep returned), and signing out (revoked, forgotten)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from auger.config.credentials import load_signin, remove_signin
from auger.config.signin.kind import Entry, Screen


async def _open(url: str) -> None:
    import webbrowser

    await asyncio.to_thread(webbrowser.open, url)


def _has_browser(env: Mapping[str, str]) -> bool:
    """Whether a browser can be opened where the user sits: not over SSH, nor on a Linux
    console (where Python would start a text browser in this terminal), unless `BROWSER` says
    which to use."""
    import sys
    import webbrowser

    if env.get("BROWSER"):
        return True
    if env.get("SSH_CONNECTION") or env.get("SSH_TTY"):
        return False
    if sys.platform.startswith("linux") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return False
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


async def sign_in(provider: str, env: Mapping[str, str], *, device: bool, screen: Screen) -> Entry:
    """Run `provider`'s flow to its end: the entry to keep."""
    from auger.config.signin import KINDS, chatgpt, copilot
    from auger.llm.transport import HttpTransport

    kind = KINDS[provider]
    urls = kind.urls(env)
    transport = HttpTransport(env=env)
    try:
        if provider == "copilot":
            return await copilot.device_login(urls, transport, screen, asyncio.sleep)
        if device or not _has_browser(env):
            return await chatgpt.device_login(urls, transport, screen, asyncio.sleep)
        port = env.get("CHATGPT_CALLBACK_PORT", "").strip()
        ports = (int(port),) if port.isdigit() else chatgpt.PORTS
        return await chatgpt.browser_login(urls, transport, screen, ports=ports, open_browser=_open)
    finally:
        await transport.aclose()


async def sign_out(provider: str, home: Path, env: Mapping[str, str]) -> str | None:
    """Revoke `provider`'s sign-in at the provider (best effort) and forget it here; what
    happened, or `None` when there was none."""
    from auger.config.signin import KINDS
    from auger.llm.transport import HttpTransport, Timeouts

    entry = load_signin(home, provider)
    if entry is None:
        return None
    kind = KINDS[provider]
    transport = HttpTransport(env=env, timeouts=Timeouts(connect=10, write=10, idle=10))
    try:
        said = await kind.revoke(entry, kind.urls(env), transport)
    finally:
        await transport.aclose()
    remove_signin(home, provider)
    return said
