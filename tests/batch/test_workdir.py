"""A task's working directory: copied, cloned at a ref, or set up; and its shell commands."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from auger.batch.tasks import Task
from auger.batch.workdir import SetupError, check, materialise, pack, shell


async def test_a_path_is_copied_so_the_original_is_untouched(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "a.py").write_text("x = 1\n")
    into = tmp_path / "copy"
    into.mkdir()
    await materialise(Task("t", "p", path=str(source)), into, None)
    (into / "pkg" / "a.py").write_text("x = 2\n")
    assert (source / "pkg" / "a.py").read_text() == "x = 1\n"


async def test_a_packed_path_is_unpacked_where_the_task_runs(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "f.txt").write_text("hello")
    packed = pack(source)
    into = tmp_path / "worker"
    into.mkdir()
    await materialise(Task("t", "p", path="/not/on/this/machine"), into, None, packed)
    assert (into / "f.txt").read_text() == "hello"


async def test_a_git_repository_is_cloned_at_its_ref(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(origin)]
    subprocess.run([*git, "init", "-q"], check=True)
    for version in ("1", "2"):
        (origin / "VERSION").write_text(version)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", f"v{version}"], check=True)
    first = subprocess.run(
        [*git, "rev-list", "--max-parents=0", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    into = tmp_path / "clone"
    into.mkdir()
    await materialise(Task("t", "p", git=str(origin), ref=first), into, None)
    assert (into / "VERSION").read_text() == "1"


async def test_a_bad_ref_is_a_setup_error(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    into = tmp_path / "clone"
    into.mkdir()
    with pytest.raises(SetupError, match="git checkout no-such-ref failed"):
        await materialise(Task("t", "p", git=str(origin), ref="no-such-ref"), into, None)


async def test_setup_runs_in_the_fresh_directory(tmp_path: Path) -> None:
    into = tmp_path / "work"
    into.mkdir()
    await materialise(Task("t", "p", setup="echo made > here.txt"), into, {"PATH": "/usr/bin:/bin"})
    assert (into / "here.txt").read_text() == "made\n"


async def test_a_failing_setup_says_how_and_its_last_line(tmp_path: Path) -> None:
    with pytest.raises(SetupError) as caught:
        await materialise(
            Task("t", "p", setup="echo first; echo 'no disk' >&2; exit 4"), tmp_path, None
        )
    assert str(caught.value) == "setup failed (exit status 4): no disk"


async def test_a_missing_path_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match="is not a directory"):
        await materialise(Task("t", "p", path=str(tmp_path / "gone")), tmp_path, None)


async def test_the_check_exit_status_is_the_verdict(tmp_path: Path) -> None:
    assert (await check(Task("t", "p", check="test -f x"), tmp_path, None)).ok is False  # type: ignore[union-attr]
    (tmp_path / "x").write_text("")
    assert (await check(Task("t", "p", check="test -f x"), tmp_path, None)).ok is True  # type: ignore[union-attr]
    assert await check(Task("t", "p"), tmp_path, None) is None


@pytest.mark.slow
async def test_a_command_that_overruns_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    started = time.monotonic()
    done = await shell(f"(sleep 1; touch {marker}) & sleep 30", tmp_path, None, timeout=0.3)
    assert done.status is None
    assert time.monotonic() - started < 1
    time.sleep(1.2)
    assert not marker.exists()
