"""The CLI explains itself: help for every subcommand, typos caught, flags checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auger.cli import SUBCOMMANDS
from support import chat
from support.cli import Project, json_lines
from support.server import FakeServer


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def test_help_lists_every_subcommand(project: Project) -> None:
    result = project.run("--help")
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split("commands (auger COMMAND --help for each):", 1)[1]
    for name, (_, summary) in SUBCOMMANDS.items():
        assert f"  {name}" in listed and summary in listed


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_has_its_own_help(project: Project, name: str) -> None:
    result = project.run(name, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: auger {name}")


def test_a_mistyped_subcommand_is_an_error_that_suggests_the_right_one(project: Project) -> None:
    project.script(["this must not be sent"])
    result = project.run("sesions")
    assert result.returncode == 2
    assert result.stderr == "auger: unknown command 'sesions' — did you mean 'sessions'?\n"
    assert result.stdout == ""


def test_an_unknown_tool_is_an_error_listing_the_tools(project: Project) -> None:
    project.script(["unused"])
    result = project.run("-p", "--tools", "read,reed", "hi")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "unknown tools: reed" in lines[0]
    assert "bash, edit, find" in lines[0]


def test_continue_with_resume_is_a_usage_error(project: Project) -> None:
    result = project.run("-p", "-c", "-r", "abc", "hi")
    assert result.returncode == 2
    assert result.stderr.startswith("auger: -c and -r name different sessions")


def test_resume_without_an_id_lists_the_sessions_outside_a_terminal(project: Project) -> None:
    project.script(["first answer"])
    assert project.run("-p", "remember the first question").returncode == 0
    result = project.run("-r")
    assert result.returncode == 0, result.stderr
    assert "remember the first question" in result.stdout


def test_session_flag_creates_a_missing_file(project: Project) -> None:
    project.script(["noted"])
    result = project.run("-p", "--session", "new.jsonl", "take a note")
    assert result.returncode == 0, result.stderr
    lines = (project.root / "new.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "session"
    again = project.run("-p", "--json", "--session", "new.jsonl", "and now?")
    assert json_lines(again.stdout)[0]["reason"] == "restore"


@pytest.fixture
def served(tmp_path: Path, fake_server: FakeServer) -> tuple[Project, FakeServer]:
    project = Project.make(tmp_path)
    project.settings(chat.settings(fake_server))
    project.env |= chat.KEY
    return project, fake_server


def _system(server: FakeServer) -> str:
    first = server.requests[0].body["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def test_system_prompt_replaces_the_system_prompt(served: tuple[Project, FakeServer]) -> None:
    project, server = served
    server.queue(chat.text("arr"))
    result = project.run("-p", "--system-prompt", "You are a pirate.", "hi")
    assert result.returncode == 0, result.stderr
    assert _system(server) == "You are a pirate."


def test_append_system_prompt_adds_to_the_end(served: tuple[Project, FakeServer]) -> None:
    project, server = served
    server.queue(chat.text("ok"))
    result = project.run("-p", "--append-system-prompt", "Answer in French.", "hi")
    assert result.returncode == 0, result.stderr
    system = _system(server)
    assert system.startswith("You are auger") and system.endswith("\n\nAnswer in French.")
