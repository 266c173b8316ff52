"""`auger -p` stopped by SIGINT, SIGTERM or SIGHUP cleans up the same way: the running command
and background jobs are killed and their temp files removed. Spilled output is removed too."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support.cli import Project, json_lines
from tools.conftest import group_alive


def wait_for_file(path: Path, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return path.read_text().strip()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_stop_signal_kills_the_command_and_the_jobs_and_removes_their_files(
    tmp_path: Path, signum: int, code: int
) -> None:
    project = Project.make(tmp_path)
    background = {"command": "echo $$ > bg.pid; sleep 1000", "run_in_background": True}
    calls = [
        {"tool": "bash", "args": background},
        {"tool": "bash", "args": {"command": ("echo $$ > fg.pid; sleep 1000")}},
    ]
    project.script([{"parts": calls}, "never"])
    process = subprocess.Popen(
        project.command("-p", "--json", "go"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        bg = int(wait_for_file(project.root / "bg.pid"))
        fg = int(wait_for_file(project.root / "fg.pid"))
        process.send_signal(signum)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, err
    records = json_lines(out)
    assert records[-1]["type"] == "turn_end"
    assert records[-1]["stop_reason"] == "cancelled"
    started = next(r for r in records if r["type"] == "after_tool_call")
    jobs_dir = Path(re.search(r"goes to (\S+)/job1\.log", started["result"]["content"])[1])
    assert not jobs_dir.exists()
    deadline = time.monotonic() + 5
    while group_alive(bg) or group_alive(fg):
        assert time.monotonic() < deadline, "a process group outlived auger"
        time.sleep(0.05)


@pytest.mark.slow
def test_spilled_output_of_a_long_command_is_removed_when_the_session_closes(
    tmp_path: Path,
) -> None:
    project = Project.make(tmp_path)
    project.script([{"parts": [{"tool": "bash", "args": {"command": "seq 1 30000"}}]}, "done"])
    done = project.run("-p", "--json", "count")
    assert done.returncode == 0, done.stderr
    [result] = [r["result"] for r in json_lines(done.stdout) if r["type"] == "after_tool_call"]
    spilled = Path(re.search(r"Full output: (\S+)\]", result["content"])[1])
    assert spilled.name.startswith("auger-bash-")
    assert spilled.parent.name.startswith("auger-jobs-")
    assert not spilled.parent.exists()


STUCK_SYNC = """
import time

def extension(g):
    def stuck(event):
        open({marker!r}, "w").write("stuck")
        time.sleep(3600)

    g.on({event!r}, stuck)
"""

HOLDS_THE_LOOP = """
import time

def extension(g):
    async def stuck(event):
        open({marker!r}, "w").write("stuck")
        time.sleep(3600)  # blocking, inside a coroutine: the event loop itself is held

    g.on({event!r}, stuck)
"""

HANGS = """
import asyncio

def extension(g):
    async def hangs(event):
        open({marker!r}, "w").write("stuck")
        await asyncio.sleep(3600)

    g.on({event!r}, hangs)
"""


def _start_stuck(
    tmp_path: Path, source: str, event: str, *args: str
) -> tuple[subprocess.Popen[str], Path]:
    """`auger -p --json go` with an extension whose `event` handler gets stuck, once it is."""
    project = Project.make(tmp_path)
    project.script(["the answer"])
    marker = tmp_path / "stuck.marker"
    extension = tmp_path / "stuck.py"
    extension.write_text(source.format(marker=str(marker), event=event))
    process = subprocess.Popen(
        project.command("-p", "--json", "--extension", str(extension), *args, "go"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(marker)
    return process, marker


def _finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out, err


@pytest.mark.slow
def test_the_first_ctrl_c_ends_the_turn_while_a_plain_handler_sleeps(tmp_path: Path) -> None:
    process, _ = _start_stuck(tmp_path, STUCK_SYNC, "text_delta")
    process.send_signal(signal.SIGINT)
    code, out, err = _finish(process)
    assert code == 130, err
    records = json_lines(out)
    assert records[-1]["type"] == "turn_end"
    assert records[-1]["stop_reason"] == "cancelled"
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_second_ctrl_c_exits_130_while_a_handler_holds_the_event_loop(tmp_path: Path) -> None:
    process, _ = _start_stuck(tmp_path, HOLDS_THE_LOOP, "text_delta")
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)  # two signals close together would be delivered as one
    process.send_signal(signal.SIGINT)
    code, _, err = _finish(process)
    assert code == 130, err
    assert "Traceback" not in err


@pytest.mark.slow
def test_ctrl_c_while_a_session_shutdown_handler_hangs_exits_130_quietly(tmp_path: Path) -> None:
    process, _ = _start_stuck(tmp_path, HANGS, "session_shutdown")
    process.send_signal(signal.SIGINT)
    code, out, err = _finish(process)
    assert code == 130, err
    assert json_lines(out)[-1]["stop_reason"] == "completed"  # the answer had been given
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
