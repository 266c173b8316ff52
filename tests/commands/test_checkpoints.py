"""The shadow store behind `/undo`: a snapshot that is cancelled leaves no git behind."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from auger.commands.checkpoints import ShadowStore

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="checkpoints need git")


async def test_a_cancelled_snapshot_stops_and_reaps_its_git(tmp_path: Path) -> None:
    project, bin_dir = tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    bin_dir.mkdir()
    (project / "a.txt").write_text("a\n")
    real = shutil.which("git")
    slow = bin_dir / "git"  # `git add` hangs, as on a huge tree; anything else is git
    slow.write_text(
        f'#!/bin/sh\ncase " $* " in *" add "*) echo $$ > "{tmp_path}/pid"; exec sleep 30;; esac\n'
        f'exec {real} "$@"\n'
    )
    slow.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    store = ShadowStore(tmp_path / "store", project, env)
    snapshot = asyncio.create_task(store.snapshot())
    while not (tmp_path / "pid").exists():
        await asyncio.sleep(0.02)
    pid = int((tmp_path / "pid").read_text())
    snapshot.cancel()
    with pytest.raises(asyncio.CancelledError):
        await snapshot
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not a zombie
        os.kill(pid, 0)
    slow.unlink()  # the next snapshot, with git as it is, works: no lock was left
    assert len(await ShadowStore(tmp_path / "store", project, env).snapshot()) == 40
