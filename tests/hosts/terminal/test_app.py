"""The terminal session in-process: keys through a pipe, the screen written to a buffer."""

from __future__ import annotations

import asyncio
import io
import json
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from auger.cli import _parser
from auger.hosts.terminal.app import Sessions, Terminal
from auger.hosts.terminal.text import clean

ENTER, DOWN, CTRL_C, CTRL_D, CTRL_S = "\r", "\x1b[B", "\x03", "\x04", "\x13"


class Screen(io.StringIO):
    """Everything written to the terminal."""

    def isatty(self) -> bool:
        return True

    def text(self) -> str:
        return clean(self.getvalue())


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "script.json").write_text(json.dumps(["first reply", "second reply"]))
    provider = {"api": "scripted", "script": str(home / "script.json")}
    (home / "settings.json").write_text(
        json.dumps({"model": "s/test", "providers": {"s": provider}})
    )
    monkeypatch.setenv("AUGER_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home


async def session(
    steps: list[tuple[str, str]], sessions: Sessions | None = None
) -> tuple[int, Screen]:
    """Run a session: for each step, wait until the screen shows the text, then type the keys."""
    screen = Screen()
    # No cursor-position requests: a pipe never answers them.
    output = Vt100_Output(screen, lambda: Size(rows=30, columns=100), enable_cpr=False)
    opts: Namespace = _parser().parse_args(["--no-extensions"])  # type: ignore[attr-defined]
    with create_pipe_input() as keys, create_app_session(input=keys, output=output):
        terminal = Terminal(opts, sessions=sessions)
        running = asyncio.create_task(terminal.run())
        for shown, typed in steps:
            await until(lambda shown=shown: shown in screen.text(), screen)
            keys.send_text(typed)
        code = await asyncio.wait_for(running, 10)
    return code, screen


async def until(ready: Callable[[], bool], screen: Screen, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not ready():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"the screen never showed what was awaited:\n{screen.text()}")
        await asyncio.sleep(0.02)


async def test_a_message_typed_while_the_agent_works_waits_its_turn(home: Path) -> None:
    code, screen = await session(
        [("s/test · ctx", f"one{ENTER}two{ENTER}"), ("second reply", CTRL_D)],
    )
    text = screen.text()
    assert code == 0
    assert text.index("› one") < text.index("first reply") < text.index("› two")


async def test_ctrl_c_clears_the_input_then_twice_quits(home: Path) -> None:
    code, screen = await session(
        [("s/test · ctx", f"draft{CTRL_C}"), ("ctrl-l model", CTRL_C), ("again to quit", CTRL_C)],
    )
    assert code == 0
    assert "› draft" not in screen.text()


async def test_the_session_picker_without_sessions_says_so(home: Path) -> None:
    code, _ = await session([("s/test · ctx", CTRL_S), ("no saved sessions yet", CTRL_D)])
    assert code == 0


async def test_the_session_picker_lists_and_resumes(home: Path) -> None:
    resumed: list[tuple[Any, str]] = []

    async def resume(runtime: Any, session_id: str) -> None:
        resumed.append((runtime, session_id))

    saved = [("a1", "fix the parser", 120.0), ("b2", "write docs", 7200.0)]
    sessions = Sessions(lambda: saved, resume)
    code, _ = await session(
        [
            ("s/test · ctx", CTRL_S),
            ("write docs · 2h ago · b2", DOWN + ENTER),
            ("? Resume a session › write docs", CTRL_D),
        ],
        sessions,
    )
    assert code == 0
    assert [sid for _, sid in resumed] == ["b2"]
    assert resumed[0][0].model.id == "s/test"


async def test_a_large_paste_is_a_placeholder_sent_in_full(home: Path) -> None:
    pasted = "\n".join(f"line {n}" for n in range(40))
    code, screen = await session(
        [
            ("s/test · ctx", f"\x1b[200~{pasted}\x1b[201~"),
            ("[paste #1: 40 lines", ENTER),
            ("first reply", CTRL_D),
        ],
    )
    assert code == 0
    assert "› line 0" in screen.text() and "  line 39" in screen.text()


async def test_history_is_kept_across_sessions(home: Path) -> None:
    await session([("s/test · ctx", f"remember me{ENTER}"), ("first reply", CTRL_D)])
    code, screen = await session([("s/test · ctx", f"\x1b[A{ENTER}"), ("first reply", CTRL_D)])
    assert code == 0
    assert "› remember me" in screen.text()
