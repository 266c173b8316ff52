"""The repository's git config never runs from the terminal (issue 23, attack 4): typing `@`
lists the project's files through git, and a `core.fsmonitor` (or any program the repo's, an
included or the user's global config names) does not run, with no trust question needed."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from support.cli import Project
from support.tmux import TMUX, Pane, start

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(TMUX, os.X_OK), reason="needs tmux"),
]


def test_typing_at_runs_no_fsmonitor_of_the_repository(project: Project, panes: list[Pane]) -> None:
    mark = project.root.parent / "fsmonitor-ran"
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    (project.root / "alpha_notes.txt").write_text("a\n")
    included = project.root.parent / "included.cfg"
    included.write_text(f"[core]\n\tfsmonitor = touch {mark}-included\n")
    with open(project.root / ".git" / "config", "a") as config:
        config.write(f"[core]\n\tfsmonitor = touch {mark}\n[include]\n\tpath = {included}\n")
    (project.root.parent / ".gitconfig").write_text(f"[core]\n\tfsmonitor = touch {mark}-global\n")
    project.script([{"text": "ok"}])
    pane = start(panes, project)
    pane.wait_for("\n›\n")
    pane.type("look at @alpha")
    pane.wait_for("alpha_notes.txt")  # the finder ran: git listed the file
    time.sleep(0.5)
    assert sorted(p.name for p in project.root.parent.iterdir() if "fsmonitor" in p.name) == []
