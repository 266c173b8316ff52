"""A read-only or full session directory: the turn runs, and one warning says the session is
not being saved and why."""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import Project

REPLY = "a long reply " * 200  # more than the 1 KB the full disk below takes


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    # undo's checkpoints would also say they cannot be written: this is about the session
    project.script([REPLY], extensions={"disabled": ["checkpoints"]})
    return project


@pytest.fixture
def read_only_sessions(project: Project) -> Iterator[Path]:
    """The sessions directory made read-only: a read-only mount for root (whom permissions
    do not stop), else its write bits taken away."""
    sessions = project.home / "sessions"
    sessions.mkdir()
    if os.geteuid() == 0:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", sessions])
        if mounted.returncode != 0:
            pytest.skip("root without mount: no way to make a directory read-only")
        yield sessions
        subprocess.run(["umount", sessions], check=True)
    else:
        sessions.chmod(0o555)
        yield sessions
        sessions.chmod(0o755)


def run_limited(project: Project, *args: str, max_file: int) -> subprocess.CompletedProcess[str]:
    """auger with files limited to `max_file` bytes (a write past it fails with EFBIG)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file, max_file))

    return subprocess.run(
        project.command(*args),
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=limit,
    )


@pytest.mark.slow
def test_a_read_only_session_directory_still_runs_the_turn(
    project: Project, read_only_sessions: Path
) -> None:
    done = project.run("-p", "hello")
    assert (done.returncode, done.stdout) == (0, REPLY + "\n")
    [warning] = done.stderr.splitlines()
    assert warning.startswith("auger: warning: the session is not being saved (")
    assert "Read-only file system" in warning or "Permission denied" in warning
    assert warning.endswith("): this conversation goes on in memory only")
    assert list(read_only_sessions.iterdir()) == []


@pytest.mark.slow
def test_a_full_disk_mid_session_still_runs_the_turn_and_warns_once(project: Project) -> None:
    done = run_limited(project, "-p", "hello", max_file=1024)
    assert (done.returncode, done.stdout) == (0, REPLY + "\n")
    print(done.stderr)
    [warning] = done.stderr.splitlines()
    assert "File too large" in warning
    [path] = (project.home / "sessions").glob("*/*.jsonl")
    assert path.stat().st_size == 1024
    project.script(["next"], extensions={"disabled": ["checkpoints"]})
    again = project.run("-p", "-c", "go on")
    assert (again.returncode, again.stdout) == (0, "next\n")
    assert "skipped a torn last line" in again.stderr


@pytest.mark.slow
def test_a_session_path_in_a_missing_directory_runs_the_turn_and_says_it_is_not_saved(
    project: Project, tmp_path: Path
) -> None:
    missing = tmp_path / "nonexistent" / "x.jsonl"
    done = project.run("-p", "--session", str(missing), "hi")
    assert (done.returncode, done.stdout) == (0, REPLY + "\n")
    assert done.stderr == (
        f"auger: warning: the session is not being saved ({missing}: No such file or "
        "directory): this conversation goes on in memory only\n"
    )
    assert not missing.parent.exists()  # a directory the user named is never made
