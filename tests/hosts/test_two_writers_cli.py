"""Two processes continuing one session: neither turn ends up hidden on a side branch. A new
prompt after the other's finished turn continues after it; a write in the middle of a turn
forks into a new session file. Each says which."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project


def scripts(project: Project, **replies: list[Any]) -> None:
    """A scripted provider per name (`--model NAME/test`), each with its own replies."""
    providers = {}
    for name, script in replies.items():
        path = project.home / f"{name}.json"
        path.write_text(json.dumps(script))
        providers[name] = {"api": "scripted", "script": str(path)}
    # checkpoints (undo) write entries of their own: this test counts the other writer's
    project.settings(
        {
            "model": "seed/test",
            "providers": providers,
            "extensions": {"disabled": ["checkpoints"]},
        }
    )


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def texts(path: Path) -> list[str]:
    out = []
    for entry in entries(path):
        if entry["type"] == "message":
            out.append(entry["message"]["content"][0]["text"])
    return out


def wait_for(predicate: Any, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    scripts(
        project,
        seed=["seeded"],
        a=[{"parts": [{"delay": 2}, {"text": "from A"}]}, "A again"],
        b=["from B"],
    )
    assert project.run("-p", "seed it").returncode == 0
    return project


def the_session(project: Project) -> Path:
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    return path


@pytest.mark.slow
def test_a_write_mid_turn_after_another_writer_forks_and_says_so(project: Project) -> None:
    path = the_session(project)
    a = subprocess.Popen(
        project.command("-p", "-c", "--model", "a/test", "A asks"),
        cwd=project.root,
        env=project.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: "A asks" in texts(path))
        b = project.run("-p", "-c", "--model", "b/test", "B asks")
        assert (b.returncode, b.stdout, b.stderr) == (0, "from B\n", "")
        out, err = a.communicate(timeout=20)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    assert (a.returncode, out) == (0, "from A\n")
    [forked] = [p for p in path.parent.glob("*.jsonl") if p != path]
    assert err == (
        f"auger: warning: another auger process added 2 entries to session {path.stem} while "
        f"this one was using it; this conversation continues in a new session {forked.stem} "
        f"({forked})\n"
    )
    assert texts(path) == ["seed it", "seeded", "A asks", "B asks", "from B"]
    assert texts(forked) == ["seed it", "seeded", "A asks", "from A"]


@pytest.mark.slow
def test_a_new_prompt_after_the_other_writers_turn_continues_after_it(project: Project) -> None:
    path = the_session(project)
    rpc = subprocess.Popen(
        project.command("rpc", "-c", "--model", "a/test"),
        cwd=project.root,
        env=project.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert rpc.stdin is not None and rpc.stdout is not None
        rpc.stdin.write(json.dumps({"id": 1, "type": "get_state"}) + "\n")
        rpc.stdin.flush()
        assert json.loads(rpc.stdout.readline())["session_id"] == path.stem
        b = project.run("-p", "-c", "--model", "b/test", "B asks")
        assert b.returncode == 0
        rpc.stdin.write(json.dumps({"id": 2, "type": "prompt", "text": "A asks"}) + "\n")
        rpc.stdin.close()
        lines = [json.loads(line) for line in rpc.stdout]
        assert rpc.wait(timeout=20) == 0
    finally:
        if rpc.poll() is None:
            rpc.kill()
            rpc.wait()
    [notice] = [line for line in lines if line.get("type") == "notify"]
    assert notice["message"] == (
        f"another auger process added 2 entries to session {path.stem} since this one "
        "loaded it; continuing after them"
    )
    assert list(path.parent.glob("*.jsonl")) == [path]
    assert texts(path) == ["seed it", "seeded", "B asks", "from B", "A asks", "from A"]
    saved = entries(path)
    assert [e["parent_id"] for e in saved[1:]] == [e["id"] for e in saved[:-1]]
