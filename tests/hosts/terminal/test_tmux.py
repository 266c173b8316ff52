"""The interactive terminal in a real terminal: `auger` runs in tmux (100×30) against the scripted
provider, is driven by keys, and is judged by what a person would see on the screen."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import time

import pytest

from support.cli import Project
from support.server import FakeServer, Reply, sse
from support.tmux import TMUX, Pane, in_order, start

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(TMUX, os.X_OK), reason="needs tmux"),
]

EXTENSION = """
import asyncio
import json
from pathlib import Path

LOG = Path(__file__).with_name("events.jsonl")


def log(event):
    with LOG.open("a") as f:
        f.write(json.dumps(event.to_dict(), default=str) + "\\n")


def extension(g):
    async def colour(ctx):
        answer = await ctx.ask("Pick a colour", options=["red", "green", "blue"])
        await ctx.say(f"You picked {answer}")

    async def shutdown(event):
        await asyncio.sleep(0.3)  # slow work on the way out must still finish
        log(event)

    g.command("colour", colour, "pick a colour")
    for name in ("input", "user_bash", "idle", "turn_end", "session_end"):
        g.on(name, log)
    g.on("session_shutdown", shutdown)
"""

ITEMS = "\n".join(f"{i}. item number {i}" for i in range(1, 31))
REPLIES = [
    {"parts": [{"tool": "bash", "args": {"command": "echo from-the-tool"}}]},
    {
        "parts": [
            {"reasoning": "The user greets me.\nI should answer with a list."},
            {
                "text": f"Hello from **auger**. The items:\n\n{ITEMS}\n\n"
                "```python\nprint('done')\n```\n\nThat is all."
            },
        ]
    },
    {"parts": [{"text": "Working on it"}, {"delay": 30}, {"text": "never shown"}]},
]


def test_a_session_typed_at_the_keyboard(project: Project, panes: list[Pane]) -> None:
    project.script(REPLIES)
    extension = project.root / "colour.py"
    extension.write_text(EXTENSION)
    pane = start(panes, project, "--extension", "colour.py")

    screen = pane.wait_for("\n›\n", "s/test · ctx")
    assert "ctrl-l model" in screen

    pane.type("hello auger")
    pane.keys("Enter")
    screen = pane.wait_for("That is all.", "s/test · ctx")
    assert re.search(r"\ns/test · ctx \d+% of 128k · ↑\d[\d.k]* ↓\d", screen), screen

    pane.type("/colour")
    pane.keys("Enter")
    pane.wait_for("? Pick a colour", "❯ red", "esc cancel")
    pane.keys("Down")
    pane.wait_for("❯ green")
    pane.keys("Enter")
    pane.wait_for("You picked green")

    pane.type("!echo hi-from-the-shell")
    pane.keys("Enter")
    pane.wait_for("$ echo hi-from-the-shell")

    pane.type("take your time")
    pane.keys("Enter")
    pane.wait_for("Working on it", "esc to cancel")
    pane.keys("Escape")
    pane.wait_for("⏹ cancelled")

    pane.keys("C-d")
    assert pane.exit_status() == 0

    history = pane.scrollback()
    expected = [
        "› hello auger",
        '⚙ bash(command="echo from-the-tool")',
        "  ⎿ from-the-tool",
        "∴ The user greets me.  (+1 lines, ctrl-o)",
        "Hello from auger. The items:",
        "1. item number 1\n",
        "30. item number 30\n",
        "print('done')",
        "That is all.",
        "› /colour",
        "? Pick a colour › green",
        "You picked green",
        "$ echo hi-from-the-shell\nhi-from-the-shell",
        "› take your time",
        "Working on it",
        "⏹ cancelled",
    ]
    found = in_order(history, *expected)
    assert -1 not in found, [e for e, at in zip(expected, found, strict=True) if at < 0]
    assert "never shown" not in history
    # The conversation is longer than the screen: its start lives on only in the scrollback.
    assert "› hello auger" not in pane.screen()
    # Nothing of the input area is left behind between the lines of the conversation.
    assert "esc to cancel" not in history and "ctrl-l model" not in history

    events = [json.loads(line) for line in (project.root / "events.jsonl").read_text().splitlines()]
    kinds = [e["type"] for e in events]
    assert [e["text"] for e in events if e["type"] == "input"] == [
        "hello auger",
        "/colour",
        "!echo hi-from-the-shell",
        "take your time",
    ]
    assert {"type": "user_bash", "command": "echo hi-from-the-shell"} in events
    turn_ends = [i for i, k in enumerate(kinds) if k == "turn_end"]
    assert len(turn_ends) == 4
    assert all(kinds[i - 1] == "idle" for i in turn_ends)  # idle, then turn_end (SPEC §2.2)
    assert events[turn_ends[-1]]["stop_reason"] == "cancelled"
    assert kinds[-2:] == ["session_end", "session_shutdown"]
    assert events[-2]["reason"] == "close"


def test_a_first_run_asks_for_a_model_and_a_key(project: Project, panes: list[Pane]) -> None:
    script = project.home / "script.json"
    script.write_text(json.dumps([{"text": "Ready when you are."}]))
    provider = {"api": "scripted", "script": str(script), "api_key_env": "AUGER_TEST_KEY"}
    project.settings({"providers": {"s": provider | {"models": {"test": {}}}}})
    pane = start(panes, project)

    pane.wait_for("? No model is chosen yet. Which one?", "❯ s/test")
    pane.keys("Enter")
    pane.wait_for("AUGER_TEST_KEY is not set")
    pane.type("sk-test-123")
    screen = pane.wait_for("***********")
    assert "sk-test-123" not in screen
    pane.keys("Enter")
    pane.wait_for("s/test · ctx", "does not look like an API key (it is only 11 characters long)")

    pane.type("hi")
    pane.keys("Enter")
    pane.wait_for("Ready when you are.")
    pane.keys("C-d")
    assert pane.exit_status() == 0

    auth = project.home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text()) == {"AUGER_TEST_KEY": "sk-test-123"}
    assert json.loads((project.home / "settings.json").read_text())["model"] == "s/test"
    assert "sk-test-123" not in pane.scrollback()
    assert "hi" in (project.home / "history").read_text()


@pytest.mark.parametrize("command", ["/quit", "/exit"])
def test_quit_and_exit_end_the_terminal(project: Project, panes: list[Pane], command: str) -> None:
    project.script([{"text": "hi there"}])
    log = project.root / "events.jsonl"
    extension = project.root / "colour.py"
    extension.write_text(EXTENSION)
    pane = start(panes, project, "--extension", "colour.py")
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("hello")
    pane.keys("Enter")
    pane.wait_for("hi there")
    pane.type(command)
    pane.keys("Enter")
    assert pane.exit_status() == 0
    assert [e["type"] for e in map(json.loads, log.read_text().splitlines())][-1] == (
        "session_shutdown"
    )


def test_a_resumed_session_shows_its_conversation_before_the_prompt(
    project: Project, panes: list[Pane]
) -> None:
    (project.root / "notes.txt").write_text("first line of notes\n")
    project.script(
        [
            {"parts": [{"tool": "read", "args": {"path": "notes.txt"}}]},
            {"text": "The notes say hi."},
        ]
    )
    assert project.run("-p", "what do my notes say?").returncode == 0
    project.script([{"text": "still here"}])
    pane = start(panes, project, "-c")
    screen = pane.wait_for("The notes say hi.", "↺ resumed session", "\n›\n", "s/test · ctx")
    order = in_order(
        screen, "› what do my notes say?", "⚙ read", "The notes say hi.", "↺ resumed", "\n›\n"
    )
    assert -1 not in order, screen
    assert "<context>" not in pane.scrollback()


def test_ctrl_c_cancels_a_running_turn_and_the_session_goes_on(
    project: Project, panes: list[Pane]
) -> None:
    project.script(
        [{"parts": [{"text": "Working on it"}, {"delay": 30}, {"text": "never"}]}, {"text": "next"}]
    )
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("take your time")
    pane.keys("Enter")
    pane.wait_for("Working on it", "esc to cancel")
    pane.keys("C-c")
    pane.wait_for("⏹ cancelled")
    pane.type("and now?")
    pane.keys("Enter")
    pane.wait_for("next")
    pane.wait_idle()  # a Ctrl-C before the turn's end would cut its closing handlers short
    pane.keys("C-c")
    pane.keys("C-c")
    assert pane.exit_status() == 0


def test_an_at_file_attaches_its_content_to_the_message(
    project: Project, panes: list[Pane], fake_server: FakeServer
) -> None:
    (project.root / "notes.txt").write_text("remember the milk\n")
    project.settings(
        {
            "model": "local/test-model",
            "providers": {
                "local": {"api": "chat-completions", "base_url": f"{fake_server.url}/v1"}
            },
        }
    )
    answer = {"choices": [{"index": 0, "delta": {"content": "Noted."}, "finish_reason": None}]}
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    fake_server.queue(
        Reply(headers={"content-type": "text/event-stream"}, body=sse(answer, stop, done=True))
    )
    pane = start(panes, project)
    pane.wait_for("\n›\n", "local/test-model")
    pane.type("summarize @notes.txt please")
    pane.keys("Enter")
    pane.wait_for("Noted.")
    [request] = fake_server.requests
    sent = json.dumps(request.body["messages"][-1])
    assert "summarize @notes.txt please" in sent and "remember the milk" in sent


def test_undo_restores_what_the_last_turn_changed(project: Project, panes: list[Pane]) -> None:
    (project.root / "a.txt").write_text("alpha\n")
    (project.root / "c.txt").write_text("gamma\n")
    edit = {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}
    project.script(
        [
            {
                "parts": [
                    {"tool": "edit", "args": edit},
                    {"tool": "write", "args": {"path": "b.txt", "content": "beta\n"}},
                    {"tool": "bash", "args": {"command": "echo changed > c.txt"}},
                ]
            },
            {"text": "All three done."},
        ]
    )
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("change the files")
    pane.keys("Enter")
    pane.wait_for("All three done.")
    assert (project.root / "b.txt").exists()
    assert (project.root / "c.txt").read_text() == "changed\n"
    pane.type("/undo")
    pane.keys("Enter")
    deadline = time.monotonic() + 10
    while (project.root / "b.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (project.root / "a.txt").read_text() == "alpha\n"
    assert not (project.root / "b.txt").exists()
    assert (project.root / "c.txt").read_text() == "gamma\n"


def test_resume_without_an_id_opens_the_session_picker(project: Project, panes: list[Pane]) -> None:
    project.script([{"text": "first answer"}])
    assert project.run("-p", "the first session").returncode == 0
    project.script([{"text": "second answer"}])
    pane = start(panes, project, "-r")
    pane.wait_for("? Resume a session", "the first session")
    pane.keys("Enter")
    pane.wait_for("› the first session", "first answer")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_export_writes_a_page_a_browser_renders(project: Project, panes: list[Pane]) -> None:
    project.script([{"text": "The answer is **forty-two**."}])
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("what is the answer?")
    pane.keys("Enter")
    pane.wait_for("The answer is forty-two.")
    pane.type("/export answer.html")
    pane.keys("Enter")
    pane.wait_for("Exported to")
    page = project.root / "answer.html"
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "what is the answer?" in dom.stdout and "<strong>forty-two</strong>" in dom.stdout


def test_a_permission_question_allows_once_always_and_denies(
    project: Project, panes: list[Pane]
) -> None:
    run = [{"tool": "bash", "args": {"command": f"echo call-{n}"}} for n in range(1, 5)]
    project.script(
        # The model takes a moment to answer the last call: Esc's stop lands while it thinks.
        [{"parts": [step]} for step in run]
        + [{"parts": [{"delay": 5}, {"text": "That was all."}]}],
        permissions={"mode": "ask"},
    )
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("run them")
    pane.keys("Enter")
    pane.wait_for("? Run echo call-1", "❯ Allow once")
    pane.keys("Enter")  # allow once
    pane.wait_for("? Run echo call-2")
    pane.keys("Down", "Down")
    pane.wait_for("❯ Always allow — saves bash(echo call-2)")
    pane.keys("Enter")  # allow always: a rule for `echo call-2` is saved
    pane.wait_for("? Run echo call-3")
    pane.keys("Down", "Down", "Down")
    pane.wait_for("❯ Deny\n")
    pane.keys("Enter")  # deny
    pane.wait_for("? Run echo call-4")
    pane.keys("Escape")  # declining denies and stops the turn
    pane.wait_for("⏹ cancelled")
    history = pane.scrollback()
    assert "call-1" in history.split("? Run echo call-2")[0].split("› run them")[1]
    assert "the user denied permission for this bash call" in history
    assert "That was all." not in history
    saved = list((project.home / "projects").glob("*/settings.local.json"))
    assert len(saved) == 1 and "echo call-2" in saved[0].read_text()


def test_the_todo_list_is_a_checklist_above_the_input(project: Project, panes: list[Pane]) -> None:
    items = [
        {"content": "read the notes", "status": "completed"},
        {"content": "write the summary", "status": "in_progress"},
        {"content": "check the result", "status": "pending"},
    ]
    done = [dict(item, status="completed") for item in items]
    project.script(
        [
            {"parts": [{"tool": "todo", "args": {"items": items}}]},
            {"text": "Planned."},
            {"parts": [{"tool": "todo", "args": {"items": done}}]},
            {"text": "All done."},
        ]
    )
    pane = start(panes, project)
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("plan it")
    pane.keys("Enter")
    screen = pane.wait_for("Planned.", "▸ write the summary")
    lines = screen.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    assert lines[rule - 3 : rule] == [
        "✔ read the notes",
        "▸ write the summary",
        "☐ check the result",
    ]
    pane.type("finish")
    pane.keys("Enter")
    screen = pane.wait_for("All done.", "✔ todo: all 3 done")
    assert "▸ write the summary" not in screen


def test_a_plan_is_shown_approved_and_carried_out(project: Project, panes: list[Pane]) -> None:
    plan = "1. Write hello.txt"
    write = {"tool": "write", "args": {"path": "hello.txt", "content": "hi\n"}}
    project.script(
        [
            {"parts": [{"tool": "propose_plan", "args": {"plan": plan}}]},
            {"parts": [write]},
            {"text": "Carried out."},
        ],
        permissions={},
    )
    pane = start(panes, project, "--permission-mode", "plan")
    pane.wait_for("\n›\n", "s/test · ctx")
    pane.type("plan it")
    pane.keys("Enter")
    # the plan and the question together (the screen is redrawn as they arrive)
    pane.wait_for("? Approve this plan?", "❯ Approve, accept edits", "◇ plan", plan)
    assert not (project.root / "hello.txt").exists()
    pane.keys("Enter")
    pane.wait_for("Carried out.", "◇ plan approved — mode accept-edits")
    assert (project.root / "hello.txt").read_text() == "hi\n"
