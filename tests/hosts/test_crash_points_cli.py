"""`kill -9` at named points spread over one turn, then `auger -p -c`: each point is its own
test, so the report names each. At every point the continued session loads cleanly (exit 0, not
one warning), the model is sent a well-formed history, and no tool ever runs twice.

The points, in the order a turn reaches them: after the header (the session file holds its
header and the prompt; the request is at the server), mid-stream (a text delta was printed),
mid-tool (the command is running), and between the tool result and the next request (the
result is saved; the next request is at the server).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import chat
from support.cli import Project
from support.server import FakeServer, Reply
from tools.conftest import group_alive

HOLD = 30.0  # seconds a held reply waits: far past the kill
SLOW_TOOL = "echo ran >> runs.txt; echo $$ > tool.pid; sleep 30"
QUICK_TOOL = "echo ran >> runs.txt"


def held(reply: Reply) -> Reply:
    """`reply` sent only after `HOLD` seconds: the request has arrived, no answer yet."""
    body = reply.body
    return Reply(chunks=[b"", body], chunk_delay=HOLD)


def slow_text(*pieces: str) -> Reply:
    """A text answer streamed one piece per `HOLD` seconds (the first at once)."""
    events = chat.text("".join(pieces)).body.split(b"\n\n")
    first, rest = events[0] + b"\n\n", b"\n\n".join(events[1:])
    return Reply(chunks=[first, rest], chunk_delay=HOLD)


def wait_until(done: Callable[[], bool], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"never reached: {what}"
        time.sleep(0.02)


class Point:
    """A kill point: the replies the first run gets, and when it is killed."""

    def __init__(
        self,
        replies: Callable[[], list[Reply]],
        reached: Callable[[Project, FakeServer, list[str]], bool],
    ) -> None:
        self.replies = replies
        self.reached = reached


def _tool_call(command: str) -> Reply:
    return chat.tool_calls(("c1", "bash", {"command": command}))


POINTS = {
    "after the header": Point(
        lambda: [held(chat.text("never"))],
        lambda project, server, out: len(server.requests) >= 1,
    ),
    "mid-stream": Point(
        lambda: [slow_text("Hello", " never finished")],
        lambda project, server, out: any('"text_delta"' in line for line in out),
    ),
    "mid-tool": Point(
        lambda: [_tool_call(SLOW_TOOL)],
        lambda project, server, out: (
            (project.root / "tool.pid").exists()
            and bool((project.root / "tool.pid").read_text().strip())
        ),
    ),
    "between the tool result and the next request": Point(
        lambda: [_tool_call(QUICK_TOOL), held(chat.text("never"))],
        lambda project, server, out: len(server.requests) >= 2,
    ),
}


@pytest.fixture
def project(tmp_path: Path, fake_server: FakeServer) -> Iterator[Project]:
    project = Project.make(tmp_path)
    project.settings(chat.settings(fake_server) | {"extensions": {"disabled": ["checkpoints"]}})
    project.env |= chat.KEY
    yield project
    pid_file = project.root / "tool.pid"
    if pid_file.exists() and pid_file.read_text().strip():
        pid = int(pid_file.read_text())
        if group_alive(pid):
            os.killpg(pid, signal.SIGKILL)


def _kill_at(project: Project, fake_server: FakeServer, point: Point) -> None:
    """Run `auger -p --json first` and SIGKILL it once `point` is reached."""
    fake_server.queue(*point.replies())
    process = subprocess.Popen(
        project.command("-p", "--json", "first prompt"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    out: list[str] = []
    try:
        assert process.stdout is not None
        os.set_blocking(process.stdout.fileno(), False)

        def reached() -> bool:
            line = process.stdout.readline() if process.stdout else ""
            if line:
                out.append(line)
            assert process.poll() is None, "auger ended before the kill point"
            return point.reached(project, fake_server, out)

        wait_until(reached, "the kill point")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL


@pytest.mark.slow
@pytest.mark.parametrize("name", list(POINTS))
def test_kill_9_then_continue_is_clean(
    project: Project, fake_server: FakeServer, name: str
) -> None:
    _kill_at(project, fake_server, POINTS[name])
    requests_before = len(fake_server.requests)
    fake_server.queue(chat.text("Continued."))
    done = project.run("-p", "-c", "next prompt")
    assert (done.returncode, done.stdout, done.stderr) == (0, "Continued.\n", "")

    sent = fake_server.requests[requests_before].body["messages"]
    roles = [m["role"] for m in sent if m["role"] != "system"]
    texts = json.dumps(sent)
    assert "first prompt" in texts and texts.index("first prompt") < texts.index("next prompt")
    assert roles[-1] == "user"
    for i, message in enumerate(sent):  # every call is answered right after it, once
        calls = [c["id"] for c in message.get("tool_calls") or []]
        answered = [m["tool_call_id"] for m in sent[i + 1 : i + 1 + len(calls)]]
        assert answered == calls
    runs = project.root / "runs.txt"
    ran = runs.read_text().splitlines() if runs.exists() else []
    assert len(ran) == (1 if "tool" in name else 0)  # never run again by -c
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    for line in path.read_text().splitlines():
        json.loads(line)  # every line whole
