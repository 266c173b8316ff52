"""The command line against a hostile environment: each fault is one line (or silence, for a
closed pipe) and the right exit code — never a traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    project.script(["the reply", "the reply"])
    return project


def shell(project: Project, script: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`script` in sh, with `$AUGER` the auger command."""
    auger = " ".join(project.command())
    return subprocess.run(
        ["sh", "-c", script],
        cwd=cwd or project.root,
        env={**project.env, "AUGER": auger},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.slow
def test_a_deleted_working_directory_is_one_line(project: Project, tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    done = shell(project, f"cd {gone} && rmdir {gone} && $AUGER -p hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "auger: the working directory no longer exists; cd to one that does\n"


@pytest.mark.slow
def test_a_closed_stdout_is_one_line(project: Project) -> None:
    done = shell(project, "$AUGER -p hi >&-")
    assert (done.returncode, done.stderr) == (
        2,
        "auger: standard output is closed: nowhere to print\n",
    )


@pytest.mark.slow
@pytest.mark.parametrize("mode", [[], ["--json"]], ids=["text", "json"])
def test_stdout_to_a_full_disk_is_one_line(project: Project, mode: list[str]) -> None:
    done = shell(project, f"$AUGER -p {' '.join(mode)} hi > /dev/full")
    assert done.returncode == 1
    assert done.stderr == "auger: cannot write to standard output: No space left on device\n"


@pytest.mark.slow
@pytest.mark.parametrize("flags", ["--json", "", "--all"])
def test_sessions_into_a_closed_pipe_ends_silently(project: Project, flags: str) -> None:
    for _ in range(3):
        assert project.run("-p", "hello").returncode == 0
    # Enough sessions that the listing outlives `head`'s read: the pipe closes under it.
    for n in range(400):
        folder = next((project.home / "sessions").iterdir())
        (folder / f"copy{n}.jsonl").write_bytes(next(folder.glob("*.jsonl")).read_bytes())
    done = shell(project, f"$AUGER sessions {flags} | head -c 1 >/dev/null; exit 0")
    assert (done.returncode, done.stderr) == (0, "")
    status = shell(project, f"$AUGER sessions {flags} | (head -c 1 >/dev/null; sleep 1)")
    assert status.stderr == ""


@pytest.mark.slow
def test_session_on_a_directory_is_one_line(project: Project) -> None:
    done = project.run("-p", "--session", str(project.root), "hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"auger: {project.root} is not a regular file, so it cannot be a session\n"
    )


@pytest.mark.slow
def test_an_async_extension_is_reported(project: Project) -> None:
    ext = project.root / "aext.py"
    ext.write_text("async def extension(g):\n    g.on('turn_start', lambda e: None)\n")
    done = project.run("-p", "--extension", str(ext), "hi")
    assert (done.returncode, done.stdout) == (0, "the reply\n")
    assert done.stderr == (
        "auger: error: Extension aext failed to load: aext.py: extension(g) is async def; it "
        "must be a plain function (the handlers it registers may be async)\n"
    )


@pytest.mark.slow
def test_an_extension_flag_naming_a_directory_says_so(project: Project) -> None:
    os.mkdir(project.root / "exts")
    done = project.run("-p", "--extension", "exts", "hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "auger: --extension exts is a directory: give the .py file of an extension\n"
    )
