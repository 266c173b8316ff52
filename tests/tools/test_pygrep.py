"""grep cannot hang: ripgrep is found without PATH, and the pure-Python search is killed when
it is cancelled or runs out of time, even inside a catastrophic regular expression."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from auger.tools import grep as grep_module
from auger.tools.base import ToolContext
from auger.tools.grep import TOOL as GREP
from auger.tools.search import bundled_rg, find_rg
from support.cli import Project

from .conftest import Call

CATASTROPHIC = r"(a+)+$"
EVIL_LINE = "a" * 40 + "b\n"  # 2**40 ways to fail: hours for a backtracking engine


def search_children() -> list[int]:
    """The pids of this process's children running the Python search."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"auger.tools.pygrep" in cmdline and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_the_bundled_ripgrep_is_found_with_no_rg_on_path(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, env={"PATH": str(tmp_path / "nowhere")})
    rg = find_rg(ctx)
    assert rg is not None and rg == bundled_rg()
    assert subprocess.run([rg, "--version"], capture_output=True).stdout.startswith(b"ripgrep ")


async def test_a_catastrophic_pattern_is_linear_with_ripgrep(call: Call, tmp_path: Path) -> None:
    (tmp_path / "evil.txt").write_text(EVIL_LINE * 1000)
    ctx = ToolContext(cwd=tmp_path, env={"PATH": str(tmp_path / "nowhere")})
    started = time.monotonic()
    result = await call(GREP, ctx, pattern=CATASTROPHIC)
    assert result.content == "No matches found."
    assert time.monotonic() - started < 5


@pytest.mark.slow
async def test_the_python_search_stops_at_the_time_limit(
    call: Call, tmp_path: Path, no_rg: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_module, "TIME_LIMIT", 1.0)
    (tmp_path / "evil.txt").write_text(EVIL_LINE)
    started = time.monotonic()
    result = await call(GREP, no_rg, pattern=CATASTROPHIC)
    assert time.monotonic() - started < 4
    assert result.error_type == "timeout"
    assert result.content.startswith("the search took longer than 1 s and was stopped")
    assert search_children() == []


@pytest.mark.slow
async def test_cancelling_the_python_search_kills_it(tmp_path: Path, no_rg: ToolContext) -> None:
    (tmp_path / "evil.txt").write_text(EVIL_LINE)
    task = asyncio.ensure_future(GREP.run({"pattern": CATASTROPHIC}, no_rg))
    deadline = time.monotonic() + 10
    while not search_children():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 2
    assert search_children() == []


@pytest.mark.slow
def test_ctrl_c_stops_auger_in_a_catastrophic_python_search(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    (project.root / "evil.txt").write_text(EVIL_LINE)
    project.script([{"parts": [{"tool": "grep", "args": {"pattern": CATASTROPHIC}}]}, "done"])
    env = {**project.env, "AUGER_RG": ""}
    process = subprocess.Popen(
        project.command("-p", "--json", "search"),
        cwd=project.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if '"before_tool_call"' in line:
                break
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert '"error_type":"cancelled"' in rest
