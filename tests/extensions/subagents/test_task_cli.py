"""Sub-agents through `auger -p --json` (SPEC §8): children of one `task` call run at once,
their records wrapped and tagged in the parent's stream, their answers and usage the parent's;
a definition's tool list is enforced; Ctrl-C ends every child before the parent."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.server import Reply, Seen
from support.strict import Step, StrictServer


class Routed(StrictServer):
    """A strict Messages stand-in that answers by who asks — a child whose prompt holds one of
    the `routes` keys, else the parent — and holds the first request of each child in
    `together` until all of them have asked: children that did not run at once never meet."""

    def __init__(self, routes: dict[str, list[Step]], together: tuple[str, ...] = ()) -> None:
        super().__init__("messages", routes.pop("parent"))
        self.routes = routes
        self.arrived = {key: threading.Event() for key in together}
        self.met: list[bool] = []
        self.by_route: dict[str, list[dict[str, Any]]] = {}

    def route(self, body: dict[str, Any]) -> str:
        for message in body.get("messages", []):
            if message["role"] != "user" or isinstance(message["content"], str):
                continue
            for block in message["content"]:
                text = block.get("text", "") if block["type"] == "text" else ""
                for key in self.routes:
                    if key in text:
                        return key
        return "parent"

    def _take(self, seen: Seen) -> Reply:
        key = self.route(seen.body)
        event = self.arrived.pop(key, None)
        if event is not None:
            event.set()
            self.met.append(all(e.wait(10) for e in [event, *self.arrived.values()]))
        self.by_route.setdefault(key, []).append(seen.body)
        if key == "parent":
            return super()._take(seen)
        with self._lock:
            self.requests.append(seen)
            problem = self.check(seen.body)
            if problem:
                self.violations.append(problem)
                return Reply(400, problem.encode())
            steps = self.routes[key]
            return Reply(body=self.render(seen.body, steps.pop(0) if steps else Step("done")))


def configure(project: Project, server: StrictServer, mode: str = "auto") -> None:
    provider = {"api": "messages", "base_url": server.url, "api_key_env": "LOCAL_KEY"}
    project.settings(
        {
            "model": "local/test-model",
            "providers": {"local": provider | {"models": {"test-model": {}, "other-model": {}}}},
            "retry": {"base_delay": 0.01},
            "permissions": {"mode": mode},
        }
    )
    project.env["LOCAL_KEY"] = "sk-local-test"
    (project.root / "notes.txt").write_text("the notes say 42\n")


def task(*tasks: dict[str, str]) -> Step:
    return Step(tool="task", arguments=json.dumps({"tasks": list(tasks)}))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def run(project: Project, *args: str) -> list[dict[str, Any]]:
    result = project.run("-p", "--json", *args)
    assert result.returncode == 0, result.stderr + result.stdout[-3000:]
    return json_lines(result.stdout)


def child_records(records: list[dict[str, Any]], agent_id: str) -> list[dict[str, Any]]:
    return [
        r["record"] for r in records if r["type"] == "subagent_record" and r["agent_id"] == agent_id
    ]


@pytest.mark.slow
def test_two_children_of_one_call_run_at_once_and_answer_the_parent(project: Project) -> None:
    routes = {
        "parent": [
            task(
                {"agent": "explore", "prompt": "ALPHA: what do the notes say?"},
                {"prompt": "BETA: say hello"},
            ),
            Step("Both answered."),
        ],
        "ALPHA": [Step(tool="read", arguments='{"path": "notes.txt"}'), Step("alpha found 42")],
        "BETA": [Step("beta says hello")],
    }
    with Routed(routes, together=("ALPHA", "BETA")) as server:
        configure(project, server)
        records = run(project, "ask two helpers")
        assert server.violations == []
    assert server.met == [True, True]  # each child's first request met the other's
    starts = [r for r in records if r["type"] == "subagent_start"]
    assert [(s["name"], s["depth"]) for s in starts] == [("explore", 1), ("general", 1)]
    call_id = next(r["call_id"] for r in records if r["type"] == "tool_call_done")
    assert {s["call_id"] for s in starts} == {call_id}
    ids = [s["agent_id"] for s in starts]
    # interleaved: both children started before either ended
    first_end = min(i for i, r in enumerate(records) if r["type"] == "subagent_end")
    assert all(records.index(s) < first_end for s in starts)
    alpha = child_records(records, ids[0])
    assert [r["type"] for r in alpha if r["type"].endswith("tool_call")] == [
        "before_tool_call",
        "after_tool_call",
    ]
    assert alpha[-1]["type"] == "turn_end" and alpha[-1]["text"] == "alpha found 42"
    assert child_records(records, ids[1])[-1]["text"] == "beta says hello"
    # the parent model got both answers
    last = json.dumps(server.by_route["parent"][-1]["messages"][-1])
    assert "alpha found 42" in last and "beta says hello" in last
    # every subagent_end before the call's after_tool_call; usage summed into turn_end
    ends = [r for r in records if r["type"] == "subagent_end"]
    after = next(i for i, r in enumerate(records) if r["type"] == "after_tool_call")
    assert all(records.index(e) < after for e in ends)
    turn_end = records[-1]
    own = sum(r["usage"]["output_tokens"] for r in records if r["type"] == "token_usage_done")
    children = sum(e["usage"]["output_tokens"] for e in ends)
    assert children > 0
    assert turn_end["usage"]["output_tokens"] == own + children
    assert turn_end["usage"]["input_tokens"] == 10 * len(server.requests)


@pytest.mark.slow
def test_a_claude_code_definition_gives_its_prompt_and_only_its_tools(project: Project) -> None:
    agents = project.root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: reviews code\ntools: Read, Grep\nmodel: inherit\n"
        "---\nYou review code. REVIEWER-PROMPT\n"
    )
    routes = {
        "parent": [task({"agent": "reviewer", "prompt": "GAMMA: review notes.txt"}), Step("ok")],
        "GAMMA": [
            Step(tool="bash", arguments='{"command": "touch escaped"}'),
            Step("reviewed"),
        ],
    }
    with Routed(routes) as server:
        configure(project, server)
        records = run(project, "review")
        assert server.violations == []
    first = server.by_route["GAMMA"][0]
    assert sorted(t["name"] for t in first["tools"]) == ["grep", "read"]
    assert "REVIEWER-PROMPT" in json.dumps(first["system"])
    assert "reviewer" in next(
        t["description"] for t in server.by_route["parent"][0]["tools"] if t["name"] == "task"
    )
    [start] = [r for r in records if r["type"] == "subagent_start"]
    [result] = [
        r["result"]
        for r in child_records(records, start["agent_id"])
        if r["type"] == "after_tool_call"
    ]
    assert result["error_type"] == "unknown_tool"
    assert not (project.root / "escaped").exists()


@pytest.mark.slow
def test_a_definitions_model_is_the_childs(project: Project) -> None:
    agents = project.root / ".auger" / "agents"
    agents.mkdir(parents=True)
    (agents / "quick.md").write_text("---\nmodel: other-model\n---\nBe quick.\n")
    routes = {
        "parent": [task({"agent": "quick", "prompt": "IOTA: hurry"}), Step("ok")],
        "IOTA": [Step("hurried")],
    }
    with Routed(routes) as server:
        configure(project, server)
        records = run(project, "delegate")
        assert server.violations == []
    assert [b["model"] for b in server.by_route["parent"]] == ["test-model", "test-model"]
    assert [b["model"] for b in server.by_route["IOTA"]] == ["other-model"]
    assert records[-1]["text"] == "ok"


@pytest.mark.slow
def test_children_nest_no_deeper_than_the_limit(project: Project) -> None:
    routes = {
        "parent": [task({"prompt": "DELTA: delegate"}), Step("ok")],
        "DELTA": [task({"prompt": "EPSILON: go deeper"}), Step("delta done")],
        "EPSILON": [Step("epsilon done")],
    }
    with Routed(routes) as server:
        configure(project, server)
        project.settings(
            json.loads((project.home / "settings.json").read_text())
            | {"subagents": {"max_depth": 1}}
        )
        records = run(project, "nest")
    assert "EPSILON" not in server.by_route  # the child had no task tool to call
    [delta] = [r for r in records if r["type"] == "subagent_start"]
    [result] = [
        r["result"]
        for r in child_records(records, delta["agent_id"])
        if r["type"] == "after_tool_call"
    ]
    assert result["error_type"] == "unknown_tool"
    assert "task" not in [t["name"] for t in server.by_route["DELTA"][0]["tools"]]


@pytest.mark.slow
def test_ctrl_c_ends_every_child_before_the_parent(project: Project) -> None:
    sleeper = '{{"command": "echo $$ > {}.pid; sleep 1000"}}'
    routes = {
        "parent": [task({"prompt": "ZETA: wait"}, {"prompt": "ETA: wait"}), Step("never")],
        "ZETA": [Step(tool="bash", arguments=sleeper.format("zeta"))],
        "ETA": [Step(tool="bash", arguments=sleeper.format("eta"))],
    }
    with Routed(routes) as server:
        configure(project, server)
        process = subprocess.Popen(
            project.command("-p", "--json", "wait twice"),
            cwd=project.root,
            env=project.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 20
            while not all((project.root / f"{n}.pid").exists() for n in ("zeta", "eta")):
                assert time.monotonic() < deadline and process.poll() is None, "no children ran"
                time.sleep(0.05)
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130, err
    records = json_lines(out)
    assert records[-1]["type"] == "turn_end" and records[-1]["stop_reason"] == "cancelled"
    child_ends = [
        r["record"]
        for r in records
        if r["type"] == "subagent_record" and r["record"]["type"] == "turn_end"
    ]
    assert [e["stop_reason"] for e in child_ends] == ["cancelled", "cancelled"]
    ends = [r for r in records if r["type"] == "subagent_end"]
    assert [e["stop_reason"] for e in ends] == ["cancelled", "cancelled"]
    [after] = [r for r in records if r["type"] == "after_tool_call"]
    assert after["result"]["error_type"] == "cancelled"
    assert records.index(after) > max(records.index(e) for e in ends)
