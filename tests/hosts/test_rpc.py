"""`auger rpc` as a real process: JSONL commands in, records and responses out."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines, normalized

TOOL_TURN = [{"parts": [{"tool": "ls", "args": {"path": "."}}]}, {"text": "one file"}]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


class Rpc:
    """A running `auger rpc`: send commands, read its stdout lines as they come."""

    def __init__(self, project: Project, *options: str) -> None:
        self.process = subprocess.Popen(
            project.command("rpc", *options),
            cwd=project.root,
            env=project.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def next(self, timeout: float = 15) -> dict[str, Any]:
        line = self._lines.get(timeout=timeout)
        assert line is not None, "auger rpc closed its output"
        return json.loads(line)

    def until(self, predicate: Any) -> list[dict[str, Any]]:
        """Lines up to and including the first one `predicate` accepts."""
        seen = [self.next()]
        while not predicate(seen[-1]):
            seen.append(self.next())
        return seen

    def finish(self) -> list[dict[str, Any]]:
        """Close stdin; the remaining lines once the process exits."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        rest: list[dict[str, Any]] = []
        while (line := self._lines.get(timeout=15)) is not None:
            rest.append(json.loads(line))
        assert self.process.wait(timeout=15) == 0
        return rest


@pytest.fixture
def rpc(project: Project) -> Iterator[Any]:
    started: list[Rpc] = []

    def start(*options: str) -> Rpc:
        started.append(Rpc(project, *options))
        return started[-1]

    yield start
    for running in started:
        if running.process.poll() is None:
            running.process.kill()
            running.process.wait()


def response(id_: Any) -> Any:
    return lambda line: line.get("type") == "response" and line.get("id") == id_


def test_a_whole_turn_streams_exactly_what_json_mode_prints(project: Project, rpc: Any) -> None:
    project.script(TOOL_TURN)
    (project.root / "notes.txt").write_text("hi")
    expected = json_lines(project.run("-p", "--json", "list the files").stdout)

    server = rpc()
    server.send(id=1, type="get_state")
    state = server.next()
    assert state["id"] == 1 and state["ok"] is True and state["command"] == "get_state"
    assert state["model"] == "s/test" and state["running"] is False and "ls" in state["tools"]
    server.send(id="turn", type="prompt", text="list the files")
    lines = server.until(response("turn"))
    *records, answer = lines
    assert normalized(records) == normalized(expected)
    assert answer == {
        "id": "turn",
        "type": "response",
        "command": "prompt",
        "ok": True,
        "stop_reason": "completed",
    }
    server.send(id=2, type="get_state")
    assert server.next()["messages"] == 5  # what the model is sent next: the context message too
    assert server.finish() == []


def test_cancel_stops_a_running_prompt(project: Project, rpc: Any) -> None:
    project.script([{"parts": [{"text": "starting"}, {"delay": 30}, {"text": "never"}]}])
    server = rpc()
    server.send(id=1, type="prompt", text="go")
    server.until(lambda line: line.get("type") == "text_delta")
    server.send(id=2, type="cancel")
    lines = server.until(response(1))
    assert {
        "id": 2,
        "type": "response",
        "command": "cancel",
        "ok": True,
        "cancelled": True,
    } in lines
    end = next(line for line in lines if line["type"] == "turn_end")
    assert end["stop_reason"] == "cancelled"
    assert lines[-1]["stop_reason"] == "cancelled"
    assert lines.index(end) < len(lines) - 1
    server.finish()


def test_commands_models_and_bad_input(project: Project, rpc: Any) -> None:
    project.script([{"parts": [{"delay": 30}]}])
    server = rpc()
    server.send(id=1, type="command", name="cost")
    start, output, end, answer = server.until(response(1))
    assert start["type"] == "session_start"
    assert output["type"] == "command_output" and output["text"].startswith("Tokens:")
    assert end["type"] == "turn_end" and answer["ok"] is True
    server.send(id=2, type="set_model", model="nowhere/x")
    failed = server.next()
    assert failed["ok"] is False and "unknown provider 'nowhere'" in failed["error"]["message"]
    server.send(id=3, type="list_sessions")
    assert server.next() == {
        "id": 3,
        "type": "response",
        "command": "list_sessions",
        "ok": True,
        "sessions": [],
    }
    server.send(id=4, type="teleport")
    assert server.next()["error"] == {"message": "unknown command type 'teleport'"}
    server.send(id=5, type="prompt")
    assert server.next()["error"] == {"message": '"text" must be a string'}
    server.process.stdin.write("{not json\n")
    server.process.stdin.flush()
    garbled = server.next()
    assert garbled["id"] is None and garbled["ok"] is False
    server.send(id=6, type="prompt", text="wait")
    server.send(id=7, type="prompt", text="again")
    assert server.next()["error"] == {"message": "a command is already running"}
    server.send(id=8, type="cancel")
    server.until(response(6))


def test_sessions_listed_forked_switched_and_compacted(project: Project, rpc: Any) -> None:
    project.script([{"text": "noted"}])
    server = rpc()
    server.send(id=1, type="prompt", text="remember this")
    server.until(response(1))
    server.send(id=2, type="get_state")
    first = server.next()["session_id"]
    server.send(id=3, type="list_sessions")
    (listed,) = server.next()["sessions"]
    assert listed["id"] == first and listed["title"] == "remember this"

    server.send(id=4, type="fork")
    forked = server.next()
    assert forked["ok"] is True and forked["forked"] is True
    assert forked["session_id"] != first
    server.send(id=5, type="switch", path=listed["path"])
    assert server.next() == {
        "id": 5,
        "type": "response",
        "command": "switch",
        "ok": True,
        "switched": True,
        "session_id": first,
    }
    server.send(id=6, type="switch", path=str(project.root / "nowhere.jsonl"))
    assert server.next()["ok"] is False
    server.send(id=7, type="get_history")  # the session switched to, drawn as it streamed
    records = server.next()["records"]
    assert [(r["type"], r.get("text") or r.get("content")) for r in records] == [
        ("user_text", "remember this"),
        ("text_delta", "noted"),
        ("text_done", "noted"),
    ]
    server.send(id=8, type="compact")
    compacted = server.next()
    assert compacted["ok"] is True and compacted["compacted"] is False
    server.finish()


GATE = """
from auger.records import PermissionRequest

def extension(g):
    async def gate(e, ctx):
        decision = await ctx.request_permission(
            PermissionRequest(e.call_id, e.name, e.input, f"Run {e.name}?")
        )
        return None if decision != "deny" else f"{e.name} was denied"

    g.on("tool_call", gate)
"""


def test_the_client_answers_a_permission_request(
    project: Project, rpc: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate.py"
    gate.write_text(GATE)
    project.script(
        [{"parts": [{"tool": "ls", "args": {}}, {"tool": "ls", "args": {}}]}, {"text": "ok"}]
    )
    client = rpc("--extension", str(gate))
    client.send(id=1, type="prompt", text="look")
    lines: list[dict[str, Any]] = []
    for decision in ("allow_once", "deny"):
        lines += client.until(lambda line: line["type"] == "request")
        request = lines[-1]
        assert request["kind"] == "permission"
        assert request["request"]["tool"] == "ls" and request["request"]["title"] == "Run ls?"
        client.send(id=f"a-{decision}", type="answer", question=request["id"], value=decision)
    lines += client.until(response(1))
    answers = [line for line in lines if line.get("command") == "answer"]
    assert [a["ok"] for a in answers] == [True, True]
    results = [line["result"] for line in lines if line["type"] == "after_tool_call"]
    assert [r.get("error_type") for r in results] == [None, "blocked"]
    assert results[1]["content"] == "ERROR: ls was denied"


def test_a_client_denies_and_tells_the_model_what_to_do_instead(project: Project, rpc: Any) -> None:
    (project.root / "app.py").write_text("x = 1\n")
    edit = {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    project.script(
        [{"parts": [{"tool": "edit", "args": edit}]}, {"text": "ok, x stays"}],
        permissions={"mode": "ask"},
    )
    client = rpc()
    client.send(id=1, type="prompt", text="change x")
    lines = client.until(lambda line: line["type"] == "request")
    asked = lines[-1]["request"]
    assert (asked["old_text"], asked["new_text"]) == ("x = 1\n", "x = 2\n")
    assert asked["scope"] == "all edits in this project"
    told = {"decision": "deny", "feedback": "leave x alone"}
    client.send(id=2, type="answer", question=lines[-1]["id"], value=told)
    lines = client.until(response(1))
    [result] = [line["result"] for line in lines if line["type"] == "after_tool_call"]
    assert result["content"].endswith("says what to do instead: leave x alone")
    assert [line["text"] for line in lines if line["type"] == "turn_end"] == ["ok, x stays"]
    assert (project.root / "app.py").read_text() == "x = 1\n"


def test_an_answer_to_no_open_question_is_an_error(project: Project, rpc: Any) -> None:
    project.script([])
    client = rpc()
    client.send(id=7, type="answer", question="q9", value="deny")
    answer = client.next()
    assert (answer["id"], answer["ok"]) == (7, False)
    assert "no open question" in answer["error"]["message"]


def test_no_model_is_a_usage_error(project: Project) -> None:
    result = project.run("rpc", stdin="")
    assert result.returncode == 2
    assert "no model chosen" in result.stderr


@pytest.mark.slow
def test_switch_to_a_fifo_or_a_device_is_refused_and_the_server_goes_on(
    project: Project, rpc: Any
) -> None:
    import os

    project.script([{"text": "noted"}])
    os.mkfifo(project.root / "pipe.jsonl")
    server = rpc()
    for number, path in enumerate([str(project.root / "pipe.jsonl"), "/dev/zero"], start=1):
        server.send(id=number, type="switch", path=path)
        answer = server.next(timeout=10)
        assert answer["ok"] is False
        assert answer["error"]["message"] == (
            f"{path} is not a regular file, so it cannot be a session"
        )
    server.send(id=3, type="get_state")
    assert server.next()["id"] == 3
    server.finish()


def test_a_command_nested_thousands_deep_gets_an_error_and_the_server_goes_on(
    project: Project, rpc: Any
) -> None:
    project.script([])
    client = rpc()
    assert client.process.stdin is not None
    client.process.stdin.write('{"type": "prompt", "text": ' + "[" * 5000 + "]" * 5000 + "}\n")
    client.process.stdin.flush()
    answer = client.next()
    assert (answer["type"], answer["ok"]) == ("response", False)
    assert "nested too deep" in answer["error"]["message"]
    client.send(id=2, type="get_state")
    assert client.next()["ok"] is True
