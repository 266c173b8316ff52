"""Closing events are bounded: a stuck handler or hook in `agent_end`, `turn_end`, `idle`,
`session_end` or `session_shutdown` is cut short by a timeout or by the first Ctrl-C, and the
stream still ends with `turn_end`."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import Notify, TurnEnd
from support.cli import Project
from support.runtime import collect, make_runtime

QUICK = {"extensions": {"closing_timeout": 0.3}}


def stuck(event: str, plain: bool = False) -> Any:
    """An extension whose `event` handler never returns: a coroutine awaiting forever, or a
    plain function sleeping (`plain`)."""

    def extension(g: Any) -> None:
        async def forever(e: Any) -> None:
            await asyncio.sleep(3600)

        def sleeps(e: Any) -> None:
            time.sleep(3600)

        g.on(event, sleeps if plain else forever)

    return extension


@pytest.mark.parametrize("plain", [False, True], ids=["async", "plain"])
@pytest.mark.parametrize("event", ["agent_end", "turn_end", "idle"])
async def test_a_stuck_closing_handler_is_cut_short_and_turn_end_still_comes(
    tmp_path: Path, event: str, plain: bool
) -> None:
    rt = make_runtime(
        tmp_path,
        ScriptedProvider([Reply.of("done")]),
        extensions=[stuck(event, plain)],
        settings=QUICK,
    )
    started = time.monotonic()
    records = await collect(rt, "go")
    assert time.monotonic() - started < 5
    assert isinstance(records[-1], TurnEnd) and records[-1].stop_reason == "completed"
    notices = [r.message for r in records if isinstance(r, Notify)]
    assert f"{event} handlers took longer than 0.3s; cut short" in notices


@pytest.mark.parametrize("plain", [False, True], ids=["async", "plain"])
@pytest.mark.parametrize("event", ["session_end", "session_shutdown"])
async def test_close_always_returns(tmp_path: Path, event: str, plain: bool) -> None:
    log: list[str] = []
    release = threading.Event()

    def extension(g: Any) -> None:
        async def forever(e: Any) -> None:
            log.append(f"{e.type} started")
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                log.append(f"{e.type} cut short")
                raise

        def sleeps(e: Any) -> None:
            log.append(f"{e.type} started")
            if release.wait(3600):
                log.append(f"{e.type} released")

        g.on(event, sleeps if plain else forever)
        g.on("session_shutdown", lambda e: log.append("shutdown ran"))

    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[extension], settings=QUICK)
    try:
        await asyncio.wait_for(rt.close(), timeout=5)
        # the stuck handler ran and was stopped (async) or left behind (plain) at the timeout
        ending = [] if plain else [f"{event} cut short"]
        # a stuck session_end does not keep session_shutdown away
        after = ["shutdown ran"] if event == "session_end" else []
        assert log == [f"{event} started", *ending, *after]
    finally:
        release.set()


async def test_a_cancel_cuts_a_stuck_close_short(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[stuck("session_shutdown")])
    closing = asyncio.create_task(rt.close())
    await asyncio.sleep(0.1)
    rt.cancel()
    await asyncio.wait_for(closing, timeout=5)


async def test_a_cancel_ends_the_turn_while_a_plain_stream_handler_sleeps(
    tmp_path: Path,
) -> None:
    rt = make_runtime(
        tmp_path, ScriptedProvider([Reply.of("done")]), extensions=[stuck("text_delta", True)]
    )
    records: list[Any] = []

    async def consume() -> None:
        async for record in rt.prompt("go"):
            records.append(record)

    task = asyncio.create_task(consume())
    while not any(getattr(r, "type", "") == "text_delta" for r in records):
        await asyncio.sleep(0.01)
    rt.cancel()
    await asyncio.wait_for(task, timeout=5)
    assert isinstance(records[-1], TurnEnd) and records[-1].stop_reason == "cancelled"


def interrupts(plain: bool) -> Any:
    def extension(g: Any) -> None:
        def raises(e: Any) -> None:
            raise KeyboardInterrupt

        async def raises_async(e: Any) -> None:
            raise KeyboardInterrupt

        g.on("turn_start", raises if plain else raises_async)

    return extension


@pytest.mark.parametrize("plain", [False, True], ids=["async", "plain"])
async def test_a_handler_raising_keyboard_interrupt_does_not_escape_prompt(
    tmp_path: Path, plain: bool
) -> None:
    rt = make_runtime(
        tmp_path, ScriptedProvider([Reply.of("done")]), extensions=[interrupts(plain)]
    )
    records = await collect(rt, "go")
    assert isinstance(records[-1], TurnEnd) and records[-1].stop_reason == "completed"
    assert ("error", "turn_start handler failed: KeyboardInterrupt") in [
        (r.level, r.message) for r in records if isinstance(r, Notify)
    ]


async def test_a_cancel_cuts_a_stuck_turn_end_handler_short(tmp_path: Path) -> None:
    rt = make_runtime(
        tmp_path, ScriptedProvider([Reply.of("done")]), extensions=[stuck("turn_end")]
    )
    records: list[Any] = []

    async def consume() -> None:
        async for record in rt.prompt("go"):
            records.append(record)

    task = asyncio.create_task(consume())
    while not any(getattr(r, "type", "") == "text_done" for r in records):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    rt.cancel()
    await asyncio.wait_for(task, timeout=5)
    assert records[-1].stop_reason == "completed"  # the turn had finished; only handlers stop
    assert "turn_end handlers were cancelled" in [
        r.message for r in records if isinstance(r, Notify)
    ]


def _hooks(project: Project, event: str, command: str) -> None:
    hooks = {event: [{"hooks": [{"type": "command", "command": command}]}]}
    settings = json.loads((project.home / "settings.json").read_text())
    (project.home / "settings.json").write_text(json.dumps(settings | {"hooks": hooks}))


def _ctrl_c_during(project: Project, event: str, pid_file: Path) -> tuple[int, str, str]:
    """Run `auger -p go` with a hook on `event` that hangs, and press Ctrl-C once it runs;
    the exit code, stdout and stderr."""
    _hooks(project, event, f"echo $$ > {pid_file}; sleep 3600")
    process = subprocess.Popen(
        project.command("-p", "go"),
        cwd=project.root,
        env=project.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert time.monotonic() < deadline, f"the {event} hook never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
    finally:
        process.kill()
    return process.returncode, out, err


@pytest.mark.slow
def test_the_first_ctrl_c_ends_a_stuck_stop_hook_and_kills_it(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["all done"])
    pid_file = tmp_path / "hook.pid"
    code, out, err = _ctrl_c_during(project, "Stop", pid_file)
    assert out == "all done\n", err
    assert code == 0  # the turn had completed; the hook was cut short
    hook = int(pid_file.read_text())
    assert not Path(f"/proc/{hook}").exists() or "Z" in Path(f"/proc/{hook}/stat").read_text()


@pytest.mark.slow
def test_ctrl_c_during_a_session_start_hook_exits_130(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["never"])
    code, _, _ = _ctrl_c_during(project, "SessionStart", tmp_path / "hook.pid")
    assert code == 130
