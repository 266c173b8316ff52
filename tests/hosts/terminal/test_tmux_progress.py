"""The terminal's spinner says what slow work is under way: `auger` in tmux, with two MCP
servers (tests/support/late_mcp.py) that answer only once the test lets each one go, and a
model downloaded from a stand-in Hub (tests/support/hub.py) whose CDN waits for the test."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path

import pytest

from support.cli import Project
from support.hub import Hub, HubFile, needs_client
from support.procs import running
from support.tmux import TMUX, Pane, start

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(TMUX, os.X_OK), reason="needs tmux"),
]

LATE = Path(__file__).parents[2] / "support" / "late_mcp.py"
STARTING = re.compile(r"starting MCP server (\w+)…")


def wait_gone(pane: Pane, needle: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while needle in (screen := pane.screen()):
        assert time.monotonic() < deadline, f"{needle!r} stayed on the screen:\n{screen}"
        time.sleep(0.05)
    return screen


def starting(pane: Pane, besides: str = "", timeout: float = 20) -> str:
    """The server the spinner says is starting (one other than `besides`), once it says so."""
    deadline = time.monotonic() + timeout
    while True:
        found = STARTING.search(screen := pane.screen())
        if found is not None and found.group(1) != besides:
            return found.group(1)
        assert time.monotonic() < deadline, f"no MCP server other than {besides!r}:\n{screen}"
        time.sleep(0.05)


def test_the_spinner_names_each_mcp_server_while_it_starts(
    project: Project, panes: list[Pane]
) -> None:
    gates = {name: project.root.parent / f"gate-{name}" for name in ("alpha", "beta")}
    servers = {}
    for name, gate in gates.items():
        gate.mkdir()
        servers[name] = {"command": sys.executable, "args": [str(LATE), str(gate)]}
    # the first prompt starts them (`session_start`) and waits for them before its model call
    mcp = {"servers": servers, "startup_timeout": 60}
    project.script([{"parts": [{"text": "hello from the model"}]}], mcp=mcp)
    pane = start(panes, project)
    pane.wait_for("s/test · ctx")
    pane.type("hi")
    pane.keys("Enter")

    deadline = time.monotonic() + 20
    while not all(running(str(gate)) for gate in gates.values()):  # both are under way
        assert time.monotonic() < deadline, pane.screen()
        time.sleep(0.05)
    time.sleep(0.5)  # the screen's next frames
    first = starting(pane)  # the latest still starting
    (gates[first] / "go").touch()
    second = starting(pane, besides=first)  # the other is still under way: the spinner says so
    (gates[second] / "go").touch()
    pane.wait_for("hello from the model", timeout=20)
    assert "starting MCP server" not in wait_gone(pane, "esc to cancel")


def test_the_spinner_says_a_hub_model_is_downloading_and_no_bar_is_drawn(
    project: Project, panes: list[Pane]
) -> None:
    needs_client()
    hold = threading.Event()
    hub = Hub({"tiny-org/tiny-GGUF/tiny-q4.gguf": HubFile(b"GGUF" * 2560, hold=hold)}).start()
    try:
        project.env["HF_ENDPOINT"] = hub.url
        pane = start(panes, project, "--model", "local/hf:tiny-org/tiny-GGUF/tiny-q4.gguf")
        pane.wait_for("local/hf:tiny-org")
        pane.type("hi")
        pane.keys("Enter")
        screen = pane.wait_for("downloading tiny-q4.gguf… ", "esc to cancel", timeout=20)
        spinner = next(line for line in screen.splitlines() if "esc to cancel" in line)
        assert "downloading tiny-q4.gguf…" in spinner, screen
        assert "%|" not in screen  # huggingface_hub draws no progress bar over the screen
        hold.set()
        screen = wait_gone(pane, "esc to cancel")
        assert "%|" not in screen
        folder = Path(project.env["HOME"]) / ".auger/models/hub/tiny-org/tiny-GGUF"
        assert (folder / "tiny-q4.gguf").read_bytes() == b"GGUF" * 2560
    finally:
        hold.set()
        hub.stop()
