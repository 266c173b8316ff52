"""Started anywhere inside a repository, auger uses the repository's root for everything
project-scoped: `auger trust` trusts it, and its `.auger/` extensions and settings apply."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.cli import Project

COMMAND = """
def extension(g):
    async def hello(ctx):
        await ctx.say(f"hello from the project, args {ctx.args!r}")
    g.command("hello", hello, "say hello")
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    (project.root / ".git").mkdir()
    (project.root / ".auger" / "extensions").mkdir(parents=True)
    (project.root / ".auger" / "extensions" / "hello.py").write_text(COMMAND)
    (project.root / "src" / "deep").mkdir(parents=True)
    project.script([{"text": "the model answered"}])
    return project


def run_in(project: Project, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        project.command(*args), cwd=cwd, env=project.env, capture_output=True, text=True, timeout=60
    )


def test_trust_from_a_subfolder_trusts_the_repository(project: Project) -> None:
    deep = project.root / "src" / "deep"
    trusted = run_in(project, deep, "trust")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.startswith("trusted ~/project: ")
    listed = run_in(project, deep, "trust", "--list")
    assert listed.stdout == "~/project\n"


def test_trust_refuses_a_path_that_does_not_exist(project: Project) -> None:
    result = run_in(project, project.root, "trust", str(project.root / "nowhere"))
    assert result.returncode == 2
    assert "is not a directory" in result.stderr
    assert run_in(project, project.root, "trust", "--list").stdout == ""


def test_a_subfolder_runs_the_repositorys_project_command(project: Project) -> None:
    deep = project.root / "src" / "deep"
    untrusted = run_in(project, deep, "-p", "/hello a b")
    assert "run `auger trust ~/project` to apply them" in untrusted.stderr
    assert run_in(project, deep, "trust").returncode == 0
    result = run_in(project, deep, "-p", "/hello a b")
    assert result.returncode == 0, result.stderr
    assert "hello from the project, args 'a b'" in result.stdout
    assert "the model answered" not in result.stdout
