"""The permission dialog in a real terminal (tmux, 100×30): it shows what a call would do, and
each choice does what it says."""

from __future__ import annotations

import os

import pytest

from support.cli import Project
from support.tmux import TMUX, Pane, start

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(TMUX, os.X_OK), reason="needs tmux"),
]

ASK = {"permissions": {"mode": "ask"}}
THINKING = {"delay": 5}
"""A model that takes a moment: a stop lands while it thinks."""


def ready(project: Project, panes: list[Pane], replies: list[object]) -> Pane:
    project.script(replies, **ASK)
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    return pane


def test_the_write_dialog_shows_the_new_files_content(project: Project, panes: list[Pane]) -> None:
    content = "def greet():\n    return 'hello'\n"
    write = {"tool": "write", "args": {"path": "greet.py", "content": content}}
    pane = ready(project, panes, [{"parts": [write]}, {"text": "Wrote it."}])
    pane.type("write greet.py")
    pane.keys("Enter")
    screen = pane.wait_for("? Write greet.py", "❯ Allow once")
    assert "new file greet.py · 2 lines · 32 bytes" in screen
    assert "+def greet():" in screen and "+    return 'hello'" in screen
    assert "Allow for this session: all edits in this project" in screen
    assert "Always allow — saves write(./greet.py)" in screen
    assert not (project.root / "greet.py").exists()
    pane.keys("Enter")
    pane.wait_for("Wrote it.")
    assert (project.root / "greet.py").read_text() == content


def test_the_edit_dialog_shows_the_diff_and_the_session_allows_the_next_edit(
    project: Project, panes: list[Pane]
) -> None:
    (project.root / "app.py").write_text("x = 1\ny = 2\nz = 3\n")
    first = {"path": "app.py", "old_string": "y = 2", "new_string": "y = 20"}
    second = {"path": "app.py", "old_string": "z = 3", "new_string": "z = 30"}
    pane = ready(
        project,
        panes,
        [
            {"parts": [{"tool": "edit", "args": first}]},
            {"parts": [{"tool": "edit", "args": second}]},
            {"text": "Both edited."},
        ],
    )
    pane.type("edit app.py")
    pane.keys("Enter")
    screen = pane.wait_for("? Edit app.py", "❯ Allow once")
    for line in ("--- a/app.py", "+++ b/app.py", "@@ -1,3 +1,3 @@", " x = 1", "-y = 2", "+y = 20"):
        assert f"  {line}\n" in screen, line
    pane.keys("Down")
    pane.wait_for("❯ Allow for this session: all edits in this project")
    pane.keys("Enter")
    pane.wait_for("Both edited.")  # the second edit was not asked about
    assert pane.scrollback().count("? Edit app.py") == 1  # asked once: the answer line
    assert (project.root / "app.py").read_text() == "x = 1\ny = 20\nz = 30\n"


def test_deny_and_tell_sends_the_text_as_the_tools_answer_and_the_turn_goes_on(
    project: Project, panes: list[Pane]
) -> None:
    remove = {"tool": "bash", "args": {"command": "rm -rf build && git status"}}
    pane = ready(project, panes, [{"parts": [remove]}, {"text": "Understood, I will not."}])
    pane.type("clean up")
    pane.keys("Enter")
    screen = pane.wait_for("? Run rm -rf build && git status", "❯ Allow once")
    assert "$ rm -rf build && git status" in screen
    assert f"in {project.root}" in screen and "runs: rm, git" in screen
    assert "Allow for this session: `rm -rf build` and `git status`" in screen
    pane.keys("Down", "Down", "Down", "Down")
    pane.wait_for("❯ Deny, and tell the model what to do instead")
    pane.keys("Enter")
    pane.wait_for("? What should the model do instead?")
    pane.type("keep the build folder")
    pane.keys("Enter")
    pane.wait_for("Understood, I will not.")
    assert "⎿ ✗ ERROR: the user denied permission for this bash call and says" in pane.scrollback()
    assert "⏹ cancelled" not in pane.scrollback()
    [transcript] = project.home.rglob("sessions/**/*.jsonl")
    told = "says what to do instead: keep the build folder"
    [result] = [line for line in transcript.read_text().splitlines() if told in line]
    assert '"is_error":true' in result  # the bash call's answer, in the saved conversation


def test_escape_denies_and_stops_the_turn(project: Project, panes: list[Pane]) -> None:
    call = {"tool": "bash", "args": {"command": "make deploy"}}
    pane = ready(
        project, panes, [{"parts": [call]}, {"parts": [THINKING, {"text": "never shown"}]}]
    )
    pane.type("deploy")
    pane.keys("Enter")
    pane.wait_for("? Run make deploy", "esc deny and stop")
    pane.keys("Escape")
    pane.wait_for("⏹ cancelled")
    history = pane.scrollback()
    assert "denied permission for this bash call and stopped the turn" in history
    assert "never shown" not in history


def test_shift_tab_cycles_the_permission_mode_on_the_status_line(
    project: Project, panes: list[Pane]
) -> None:
    write = {"tool": "write", "args": {"path": "notes.txt", "content": "hi\n"}}
    pane = ready(project, panes, [{"parts": [write]}, {"text": "Saved."}])
    pane.wait_for("▸ ask")
    for mode in ("accept-edits", "read-only", "auto", "ask", "accept-edits"):
        pane.keys("BTab")
        pane.wait_for(f"▸ {mode}")
    pane.type("save a note")
    pane.keys("Enter")
    pane.wait_for("Saved.")  # accept-edits: the write was not asked about
    assert "? Write notes.txt" not in pane.scrollback()
    assert (project.root / "notes.txt").read_text() == "hi\n"


def test_a_long_file_in_the_dialog_scrolls(project: Project, panes: list[Pane]) -> None:
    content = "".join(f"row {n:03d}\n" for n in range(1, 81))
    write = {"tool": "write", "args": {"path": "rows.txt", "content": content}}
    pane = ready(project, panes, [{"parts": [write]}, {"text": "Wrote rows."}])
    pane.type("write the rows")
    pane.keys("Enter")
    screen = pane.wait_for("? Write rows.txt", "❯ Allow once", "pgup/pgdn scroll")
    assert "+row 001" in screen and "+row 080" not in screen
    assert "of 81 · " in screen  # the header line, then 80 rows
    for _ in range(8):
        pane.keys("PageDown")
    screen = pane.wait_for("+row 080")
    assert "+row 001" not in screen and "❯ Allow once" in screen
    pane.keys("PageUp")
    pane.keys("Enter")
    pane.wait_for("Wrote rows.")
    assert (project.root / "rows.txt").read_text() == content
