"""The terminal where it starts and while it runs (tmux, 100×30): from a subfolder of a
repository, on a read-only home, when its terminal goes away, and when settings change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from support.cli import Project
from support.tmux import TMUX, Pane, start

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(TMUX, os.X_OK), reason="needs tmux"),
]

COMMAND = """
def extension(g):
    async def fix(ctx):
        await ctx.say(f"fixing {ctx.args}, from the project's own command")
    g.command("fix", fix, "fix something")
"""


def test_a_subfolder_start_runs_the_projects_command(project: Project, panes: list[Pane]) -> None:
    (project.root / ".git").mkdir()
    (project.root / ".auger" / "extensions").mkdir(parents=True)
    (project.root / ".auger" / "extensions" / "fixes.py").write_text(COMMAND)
    sub = project.root / "pkg" / "sub"
    sub.mkdir(parents=True)
    project.script([{"text": "the model was asked instead"}])
    pane = start(panes, project, cwd=sub)
    screen = pane.wait_for("? Trust ~/project?", "(y/n)")
    asked = screen[screen.index("? Trust") : screen.index("(y/n)") + len("(y/n)")].split("\n")
    assert len(asked) > 1  # longer than the screen is wide: wrapped between words
    assert " ".join(line.strip() for line in asked) == (
        "? Trust ~/project? Trusting it applies its .auger/extensions/fixes.py, which can run "
        "code and use your keys. (y/n)"
    )
    pane.keys("y")
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("/fix a b")
    pane.keys("Enter")
    pane.wait_for("fixing a b, from the project's own command")
    assert "the model was asked instead" not in pane.scrollback()


BWRAP = shutil.which("bwrap")


def read_only(folder: Path) -> list[str]:
    """The argv prefix that runs a command with `folder` read-only (a bubblewrap mount)."""
    assert BWRAP is not None
    return [BWRAP, "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder)]


@pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap")
def test_a_read_only_home_still_sends_and_answers(project: Project, panes: list[Pane]) -> None:
    project.script([{"text": "first answer"}, {"text": "second answer"}])
    probe = subprocess.run([*read_only(project.home), "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot mount here: {probe.stderr.decode()[-200:]}")
    pane = start(panes, project, under=read_only(project.home))
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait_for("first answer")
    pane.type("again")
    pane.keys("Enter")
    pane.wait_for("second answer")
    history = pane.scrollback()
    assert history.count("input history is kept in memory only") == 1
    assert "Traceback" not in history and "Press ENTER" not in history
    assert not (project.home / "history").exists()


@pytest.mark.parametrize("moment", ["a turn streams", "a permission question is open"])
def test_killing_the_pane_ends_auger_within_two_seconds(
    project: Project, panes: list[Pane], moment: str
) -> None:
    if moment == "a turn streams":
        project.script([{"parts": [{"text": "Working on it"}, {"delay": 30}, {"text": "never"}]}])
        shown = "Working on it"
    else:
        call = {"tool": "bash", "args": {"command": "echo hi"}}
        project.script([{"parts": [call]}], permissions={"mode": "ask"})
        shown = "? Run echo hi"
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("go")
    pane.keys("Enter")
    pane.wait_for(shown)
    shell = int(pane.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))
    children = subprocess.run(["pgrep", "-P", str(shell)], capture_output=True, text=True)
    [auger] = [Path(f"/proc/{pid}") for pid in children.stdout.split()]
    pane.tmux("kill-pane", "-t", "main")
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and _running(auger):
        time.sleep(0.05)
    assert not _running(auger), f"auger ({auger.name}) still runs 2 s after its pane was killed"


def _running(proc: Path) -> bool:
    try:
        return proc.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_reload_and_the_picker_see_a_provider_added_to_settings(
    project: Project, panes: list[Pane]
) -> None:
    project.script([{"text": "from the first provider"}])
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    other = project.home / "other.json"
    other.write_text(json.dumps([{"text": "from the provider added later"}]))
    settings = json.loads((project.home / "settings.json").read_text())
    settings["providers"]["later"] = {"api": "scripted", "script": str(other), "models": {"m": {}}}
    settings["providers"]["keyless"] = {
        "api": "chat-completions",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "AUGER_TEST_NO_SUCH_KEY",
        "models": {"m": {}},
    }
    (project.home / "settings.json").write_text(json.dumps(settings))
    pane.type("/reload")
    pane.keys("Enter")
    pane.wait_for("Extensions reloaded.")
    pane.keys("C-l")
    screen = pane.wait_for("? Model (now s/test)", "later/m")
    assert "keyless/m" not in screen  # no key: not offered
    pane.type("later/m")
    pane.wait_for("❯ later/m")
    pane.keys("Enter")
    pane.wait_for("model → later/m")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait_for("from the provider added later")


def test_copy_without_a_clipboard_tool_goes_through_the_terminal(
    project: Project, panes: list[Pane]
) -> None:
    project.script([{"text": "the reply to keep"}])
    for display in ("DISPLAY", "WAYLAND_DISPLAY"):  # no clipboard tool can reach a display
        project.env.pop(display, None)
    pane = start(panes, project)
    pane.tmux("set-option", "-g", "set-clipboard", "on")
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait_for("the reply to keep")
    pane.type("/copy")
    pane.keys("Enter")
    pane.wait_for("to the terminal's clipboard (OSC 52")
    deadline = time.monotonic() + 5
    while "the reply to keep" not in pane.tmux("show-buffer") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pane.tmux("show-buffer") == "the reply to keep"


def test_leaving_says_how_to_resume(project: Project, panes: list[Pane]) -> None:
    project.script([{"text": "hi there"}])
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait_for("hi there")
    pane.keys("C-d")
    assert pane.exit_status() == 0
    [saved] = project.home.rglob("sessions/**/*.jsonl")
    assert f"resume with `auger -r {saved.stem}`" in pane.scrollback()


def test_extension_notices_show_at_start_in_order(project: Project, panes: list[Pane]) -> None:
    project.script([{"text": "hi"}])
    folder = project.home / "extensions"
    folder.mkdir()
    (folder / "a_first.py").write_text("raise RuntimeError('first is broken')\n")
    (folder / "b_second.py").write_text("raise RuntimeError('second is broken')\n")
    pane = start(panes, project)
    screen = pane.wait_for("first is broken", "second is broken", "\n›\n", "s/test · ctx")
    assert screen.index("first is broken") < screen.index("second is broken")


def test_clear_takes_the_old_conversation_off_the_screen(
    project: Project, panes: list[Pane]
) -> None:
    project.script([{"text": "an answer from before"}, {"text": "a fresh answer"}])
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("first question")
    pane.keys("Enter")
    pane.wait_for("an answer from before")
    pane.type("/clear")
    pane.keys("Enter")
    deadline = time.monotonic() + 10
    while "an answer from before" in pane.screen() and time.monotonic() < deadline:
        time.sleep(0.05)
    screen = pane.wait_for("\n›\n", "s/test · ctx")
    assert "an answer from before" not in screen and "first question" not in screen
    assert "an answer from before" not in pane.scrollback()
    pane.type("second question")
    pane.keys("Enter")
    pane.wait_for("a fresh answer")


def test_ctrl_o_shows_any_shortened_tool_call_in_full(project: Project, panes: list[Pane]) -> None:
    first = {"tool": "bash", "args": {"command": "printf 'alpha-%s\\n' 1 2 3"}}
    second = {"tool": "bash", "args": {"command": "printf 'beta-%s\\n' 1 2"}}
    project.script([{"parts": [first, second]}, {"text": "both ran"}])
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("run both")
    pane.keys("Enter")
    pane.wait_for("both ran")
    assert "alpha-3" not in pane.scrollback()
    pane.keys("C-o")
    screen = pane.wait_for("? Show which in full?", "❯ 2. bash(")
    assert "  1. bash(" in screen
    pane.keys("Down", "Enter")  # the older one
    pane.wait_for("alpha-3")
    assert "beta-2" not in pane.scrollback()
