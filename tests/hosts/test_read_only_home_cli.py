"""`auger -p` on a read-only home (a bubblewrap mount): the turn runs, its tools run, and the
missing checkpoint is one warning, not a failed handler."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.cli import Project

BWRAP = shutil.which("bwrap")
pytestmark = pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap")


def test_print_mode_on_a_read_only_home_writes_and_warns_once(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    write = {"tool": "write", "args": {"path": "x.txt", "content": "hi\n"}}
    project.script([{"parts": [write]}, {"text": "written"}])
    assert BWRAP is not None
    wrap = [BWRAP, "--dev-bind", "/", "/", "--ro-bind", str(project.home), str(project.home)]
    probe = subprocess.run([*wrap, "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot mount here: {probe.stderr.decode()[-200:]}")
    result = subprocess.run(
        [*wrap, *project.command("-p", "write x")],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "written\n"
    assert (project.root / "x.txt").read_text() == "hi\n"
    assert "handler failed" not in result.stderr
    assert result.stderr.count("no checkpoint for /undo") == 1
