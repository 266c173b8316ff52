"""`auger login chatgpt|copilot`: a sign-in flow in the terminal — the URL or code shown, a
spinner while the user acts in the browser, the tokens kept in auth.json (0600)."""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TextIO

from auger.config import SignInError, display, save_signin, sign_in


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
