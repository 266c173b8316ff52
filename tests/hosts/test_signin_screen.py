"""What `auger login` shows while it waits: a spinner on a terminal, one line elsewhere."""

from __future__ import annotations

import asyncio
import io

from auger.hosts.signin_cli import TerminalScreen


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_a_terminal_sees_a_spinner_that_is_wiped_when_the_wait_ends() -> None:
    err = Tty()
    screen = TerminalScreen(io.StringIO(), err)
    async with screen.waiting("waiting for the browser"):
        await asyncio.sleep(0)  # the spinner draws its first frame
        drawn = err.getvalue()
    assert drawn.startswith("\r⠋ waiting for the browser (Ctrl-C to give up)")
    assert err.getvalue().endswith("\r\x1b[2K")


async def test_off_a_terminal_the_wait_is_one_plain_line() -> None:
    err = io.StringIO()
    async with TerminalScreen(io.StringIO(), err).waiting("waiting for the code to be entered"):
        await asyncio.sleep(0)
    assert err.getvalue() == "waiting for the code to be entered…\n"
