"""`/undo` and `/rewind` through `auger -p`: files edited, created, deleted or changed by a
shell command come back as they were, and the user's own git is left alone."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git"),
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    (project.root / "a.txt").write_text("original\n")
    (project.root / "b.txt").write_text("keep me\n")
    return project


def turn(*calls: dict[str, Any]) -> list[Any]:
    """A scripted turn: one response making `calls`, then a closing reply."""
    return [{"parts": [{"tool": c["tool"], "args": c["args"]} for c in calls]}, "done"]


def run(project: Project, *args: str) -> str:
    result = project.run("-p", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_undo_restores_an_edited_file_and_removes_a_created_one(project: Project) -> None:
    project.script(
        turn(
            {
                "tool": "edit",
                "args": {"path": "a.txt", "old_string": "original", "new_string": "edited"},
            },
            {"tool": "write", "args": {"path": "src/new.txt", "content": "fresh\n"}},
        )
    )
    run(project, "change things")
    assert (project.root / "a.txt").read_text() == "edited\n"
    assert (project.root / "src" / "new.txt").exists()
    out = run(project, "-c", "/undo")
    assert (project.root / "a.txt").read_text() == "original\n"
    assert not (project.root / "src").exists()
    assert "restored a.txt" in out and "removed src/new.txt" in out


def test_undo_reverts_what_a_shell_command_did(project: Project) -> None:
    command = "echo changed > a.txt && rm b.txt"
    project.script(turn({"tool": "bash", "args": {"command": command}}))
    run(project, "run it")
    assert not (project.root / "b.txt").exists()
    run(project, "-c", "/undo")
    assert (project.root / "a.txt").read_text() == "original\n"
    assert (project.root / "b.txt").read_text() == "keep me\n"


def test_undo_moves_the_conversation_back_too(project: Project) -> None:
    project.script(turn({"tool": "write", "args": {"path": "x.txt", "content": "x"}}))
    run(project, "write x")
    assert "Messages: 4" in run(project, "-c", "/session")
    run(project, "-c", "/undo")
    assert "Messages: 0" in run(project, "-c", "/session")
    assert "Nothing to undo" in run(project, "-c", "/undo")


def test_undo_leaves_the_users_git_alone(project: Project) -> None:
    env = project.env | {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x"}
    env |= {"GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}
    for args in (["init", "-q"], ["add", "a.txt"], ["commit", "-qm", "first"]):
        subprocess.run(["git", *args], cwd=project.root, env=env, check=True)
    git = project.root / ".git"
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in git.rglob("*") if p.is_file()}
    project.script(turn({"tool": "write", "args": {"path": "a.txt", "content": "new\n"}}))
    run(project, "write")
    run(project, "-c", "/undo")
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in git.rglob("*") if p.is_file()}
    assert after == before
    assert (project.root / "a.txt").read_text() == "original\n"
    assert not any(project.root.glob(".auger*"))


def test_rewind_goes_back_several_turns(project: Project) -> None:
    project.script(
        turn({"tool": "write", "args": {"path": "a.txt", "content": "one\n"}})
        + turn({"tool": "write", "args": {"path": "c.txt", "content": "two\n"}})
    )
    run(project, "first")
    run(project, "-c", "second")
    listing = run(project, "-c", "/rewind")
    assert "1. first" in listing and "2. second" in listing
    run(project, "-c", "/rewind 1")
    assert (project.root / "a.txt").read_text() == "original\n"
    assert not (project.root / "c.txt").exists()


def test_rewind_refuses_a_turn_that_does_not_exist(project: Project) -> None:
    project.script(turn({"tool": "write", "args": {"path": "a.txt", "content": "one\n"}}))
    run(project, "first")
    result = project.run("-p", "-c", "/rewind 5")
    assert "/rewind takes a turn number from 1 to 1" in result.stderr
    assert (project.root / "a.txt").read_text() == "one\n"
