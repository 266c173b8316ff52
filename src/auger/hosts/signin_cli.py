"""`auger login chatgpt|copilot`: a sign-in flow in the terminal — the URL or code shown, a
spinner while the user acts in the browser, the tokens kept in auth.json (0600)."""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from auger.config.credentials import save_signin
from auger.config.paths import display
from auger.config.signin.kind import Entry
from auger.config.signin.web import SignInError


class TerminalScreen:
    """Lines on `out`; a spinner on `err` while waiting when it is a terminal."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = out
        self.err = err

    async def say(self, text: str) -> None:
        """Show a line."""
        self.out.write(text + "\n")
        self.out.flush()

    @asynccontextmanager
    async def waiting(self, label: str) -> AsyncIterator[None]:
        """A spinner (or, off a terminal, one line) until the context closes."""
        if not self.err.isatty():
            self.err.write(f"{label}…\n")
            self.err.flush()
            yield
            return
        spinner = asyncio.create_task(self._spin(label))
        try:
            yield
        finally:
            spinner.cancel()
            self.err.write("\r\x1b[2K")
            self.err.flush()

    async def _spin(self, label: str) -> None:
        for frame in itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"):
            self.err.write(f"\r{frame} {label} (Ctrl-C to give up)")
            self.err.flush()
            await asyncio.sleep(0.1)


async def _open(url: str) -> None:
    import webbrowser

    await asyncio.to_thread(webbrowser.open, url)


def _has_browser() -> bool:
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


async def sign_in(provider: str, env: Mapping[str, str], *, device: bool, screen: Any) -> Entry:
    """Run `provider`'s flow to its end: the entry to keep."""
    from auger.config.signin import KINDS, chatgpt, copilot
    from auger.llm.transport import HttpTransport

    kind = KINDS[provider]
    urls = kind.urls(env)
    transport = HttpTransport(env=env)
    try:
        if provider == "copilot":
            return await copilot.device_login(urls, transport, screen, asyncio.sleep)
        if device or not _has_browser():
            return await chatgpt.device_login(urls, transport, screen, asyncio.sleep)
        port = env.get("CHATGPT_CALLBACK_PORT", "").strip()
        ports = (int(port),) if port.isdigit() else chatgpt.PORTS
        return await chatgpt.browser_login(urls, transport, screen, ports=ports, open_browser=_open)
    finally:
        await transport.aclose()


def login(
    provider: str, home: Path, *, device: bool, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Sign in to `provider` and keep the sign-in; the exit status."""
    screen = TerminalScreen(out, err)
    try:
        entry = asyncio.run(sign_in(provider, os.environ, device=device, screen=screen))
    except SignInError as exc:
        err.write(f"auger: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("auger: sign-in abandoned — nothing was saved\n")
        return 130
    path = save_signin(home, provider, entry)
    who = f" as {entry['email']}" if entry.get("email") else ""
    models = f"; {len(entry['models'])} models on this seat" if entry.get("models") else ""
    out.write(f"signed in to {provider}{who}{models} — kept in {display(path)}\n")
    return 0
