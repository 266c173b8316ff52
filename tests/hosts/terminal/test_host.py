"""The terminal's host, the pipe to the screen, first-run questions and input completion, each
without a screen."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from auger.config.credentials import load_credentials
from auger.hosts.terminal.boot import _fix, model_choices
from auger.hosts.terminal.complete import InputCompleter
from auger.hosts.terminal.host import Pipe, Progress, TerminalHost
from auger.records import PermissionAnswer, PermissionRequest
from support.cli import Project


class Screen:
    """A surface that answers every question with `answer` and remembers what it was asked."""

    def __init__(self, answer: str | None, *then: str | None) -> None:
        self.answer = answer
        self.answers = [answer, *then]
        self.asked: list[tuple[str, list[str] | None, bool]] = []
        self.details: list[list[tuple[str, str]]] = []

    def choose(
        self,
        question: str,
        options: list[str] | None,
        secret: bool,
        done: Callable[[str | None], None],
        detail: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.asked.append((question, options, secret))
        self.details.append(list(detail))
        done(self.answers.pop(0) if self.answers else self.answer)


async def in_thread(fn: Callable[[], Any]) -> Any:
    """Run `fn` in another thread, as the Runtime's thread calls the host."""
    return await asyncio.get_running_loop().run_in_executor(None, fn)


async def test_pipe_delivers_in_order_in_bursts() -> None:
    batches: list[list[Any]] = []
    pipe = Pipe(asyncio.get_running_loop(), batches.append)

    def produce() -> None:
        for n in range(1000):
            pipe.put(n)

    await in_thread(produce)
    await asyncio.sleep(0.05)
    assert [n for batch in batches for n in batch] == list(range(1000))
    assert len(batches) < 1000


def runtime_loop() -> asyncio.AbstractEventLoop:
    """An event loop on a thread of its own, as the terminal runs the Runtime."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    return loop


async def on(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    """Await `coro` run on `loop` (the Runtime's), from the screen's loop."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


async def test_ask_from_the_runtimes_loop_is_answered_on_the_screen() -> None:
    screen = Screen("green")
    loop = asyncio.get_running_loop()
    host = TerminalHost(screen, loop, Pipe(loop, print), Path("."))
    runtime = runtime_loop()
    try:
        assert await on(runtime, host.ask("Pick a colour", ["red", "green"])) == "green"
        assert screen.asked == [("Pick a colour", ["red", "green"], False)]
        assert await on(runtime, host.ask("Key?", secret=True)) == "green"
        assert screen.asked[-1] == ("Key?", None, True)
    finally:
        runtime.call_soon_threadsafe(runtime.stop)


async def test_a_question_never_blocks_the_runtimes_loop() -> None:
    answered: list[Callable[[str | None], None]] = []

    class Later(Screen):
        def choose(self, question, options, secret, done, detail=()) -> None:  # type: ignore[no-untyped-def]
            answered.append(done)

    loop = asyncio.get_running_loop()
    host = TerminalHost(Later(None), loop, Pipe(loop, print), Path("."))
    runtime = runtime_loop()
    try:
        asked = asyncio.run_coroutine_threadsafe(host.ask("Wait?"), runtime)
        ticks = await on(runtime, asyncio.sleep(0.05, result="the loop still runs"))
        assert ticks == "the loop still runs" and not asked.done()
        answered[0]("yes")
        assert await asyncio.wrap_future(asked) == "yes"
    finally:
        runtime.call_soon_threadsafe(runtime.stop)


async def test_confirm_is_a_yes_or_no_question() -> None:
    loop = asyncio.get_running_loop()
    yes = TerminalHost(Screen("Yes"), loop, Pipe(loop, print), Path("."))
    no = TerminalHost(Screen(None), loop, Pipe(loop, print), Path("."))
    assert await yes.confirm("Trust it?") is True
    assert await no.confirm("Trust it?") is False


SESSION = "Allow for this session: `ls`"
TELL = "Deny, and tell the model what to do instead"


@pytest.mark.parametrize(
    ("picked", "answer"),
    [
        (["Allow once"], PermissionAnswer("allow_once")),
        ([SESSION], PermissionAnswer("allow_session")),
        (["Always allow — saves bash(ls)"], PermissionAnswer("allow_always")),
        (["Deny"], PermissionAnswer("deny")),
        ([TELL, "use find instead"], PermissionAnswer("deny", feedback="use find instead")),
        ([TELL, None], PermissionAnswer("deny", stop=True)),
        ([None], PermissionAnswer("deny", stop=True)),
    ],
)
async def test_a_permission_request_offers_its_options(
    picked: list[str | None], answer: PermissionAnswer
) -> None:
    screen = Screen(*picked)
    loop = asyncio.get_running_loop()
    host = TerminalHost(screen, loop, Pipe(loop, print), Path("."))
    request = PermissionRequest(
        "c1",
        "bash",
        {"command": "ls"},
        "Run ls",
        rule="bash(ls)",
        session_rules=("bash(ls)",),
        scope="`ls`",
        cwd="/work",
        runs=("ls",),
    )
    assert await host.request_permission(request) == answer
    options = ["Allow once", SESSION, "Always allow — saves bash(ls)", "Deny", TELL]
    assert screen.asked[0] == ("Run ls", options, False)
    assert screen.details[0] == [
        ("class:detail", "$ ls"),
        ("class:detail.dim", "in /work"),
        ("class:detail.dim", "runs: ls"),
    ]


async def test_an_edit_question_shows_the_diff() -> None:
    screen = Screen("Allow once")
    loop = asyncio.get_running_loop()
    host = TerminalHost(screen, loop, Pipe(loop, print), Path("/p"))
    request = PermissionRequest(
        "c1",
        "edit",
        {},
        "Edit a.py",
        path="/p/a.py",
        old_text="x = 1\ny = 2\n",
        new_text="x = 1\ny = 3\n",
    )
    await host.request_permission(request)
    assert screen.details[0] == [
        ("class:diff.file", "--- a/a.py"),
        ("class:diff.file", "+++ b/a.py"),
        ("class:diff.hunk", "@@ -1,2 +1,2 @@"),
        ("class:detail", " x = 1"),
        ("class:diff.del", "-y = 2"),
        ("class:diff.add", "+y = 3"),
    ]


async def test_an_mcp_question_names_the_server_the_tool_and_the_arguments() -> None:
    screen = Screen("Deny")
    loop = asyncio.get_running_loop()
    host = TerminalHost(screen, loop, Pipe(loop, print), Path("."))
    request = PermissionRequest(
        "c1", "git__commit", {"message": "fix"}, "Use the tool git__commit", server="git"
    )
    await host.request_permission(request)
    assert screen.details[0] == [
        ("class:detail.dim", "MCP server git · tool commit"),
        ("class:detail", "{"),
        ("class:detail", '  "message": "fix"'),
        ("class:detail", "}"),
    ]


async def test_progress_travels_with_the_records() -> None:
    items: list[Any] = []
    loop = asyncio.get_running_loop()
    pipe = Pipe(loop, items.extend)
    host = TerminalHost(Screen(None), loop, pipe, Path("."))
    pipe.put("record 1")
    async with host.progress("indexing"):
        pipe.put("record 2")
    await asyncio.sleep(0.05)
    assert items == ["record 1", Progress("indexing", 1), "record 2", Progress(None, 1)]


async def test_an_ask_after_the_screen_closed_is_declined() -> None:
    screen_loop = asyncio.new_event_loop()
    screen_loop.close()
    host = TerminalHost(Screen("x"), screen_loop, Pipe(screen_loop, print), Path("."))
    assert await host.ask("Still there?") is None


# -- first run --------------------------------------------------------------------------------


def opts(model: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(model=model)


class Answers:
    """A host whose answers are given in advance."""

    capabilities = frozenset({"ask"})

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, list[str] | None, bool]] = []

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> Any:
        self.asked.append((question, options, secret))
        return self.answers.pop(0)


def scripted(home: Path, **provider: Any) -> None:
    settings = {"providers": {"s": {"api": "scripted", "script": "x.json", **provider}}}
    (home / "settings.json").write_text(json.dumps(settings))


async def test_a_first_run_without_a_model_asks_for_one_and_saves_it(tmp_path: Path) -> None:
    scripted(tmp_path, models={"test": {}})
    host = Answers("s/test")
    assert await _fix(opts(), host, {}, tmp_path, tmp_path) is True  # type: ignore[arg-type]
    _, options, secret = host.asked[0]
    assert options is not None and options[0] == "s/test" and not secret
    assert "anthropic/claude-sonnet-5-5" in options
    assert json.loads((tmp_path / "settings.json").read_text())["model"] == "s/test"


async def test_a_missing_key_is_asked_for_secretly_and_kept_in_auth_json(tmp_path: Path) -> None:
    scripted(tmp_path, api_key_env="S_KEY")
    host = Answers("  sk-abc  ")
    assert await _fix(opts("s/test"), host, {}, tmp_path, tmp_path) is True  # type: ignore[arg-type]
    assert host.asked[0][1:] == (None, True)
    assert "S_KEY" in host.asked[0][0]
    assert load_credentials(tmp_path) == {"S_KEY": "sk-abc"}
    assert stat.S_IMODE((tmp_path / "auth.json").stat().st_mode) == 0o600


@pytest.mark.parametrize("answer", [None, ""])
async def test_declining_the_first_run_question_changes_nothing(
    tmp_path: Path, answer: Any
) -> None:
    scripted(tmp_path, api_key_env="S_KEY")
    assert await _fix(opts("s/test"), Answers(answer), {}, tmp_path, tmp_path) is False  # type: ignore[arg-type]
    assert not (tmp_path / "auth.json").exists()


async def test_esc_at_the_key_offers_the_models_that_need_none(tmp_path: Path) -> None:
    providers = {
        "s": {"api": "scripted", "script": "x.json", "api_key_env": "S_KEY"},
        "free": {"api": "scripted", "script": "y.json", "models": {"m": {}}},
    }
    (tmp_path / "settings.json").write_text(json.dumps({"providers": providers}))
    host = Answers(None, "free/m")
    given = opts("s/test")
    assert await _fix(given, host, {}, tmp_path, tmp_path) is True  # type: ignore[arg-type]
    question, options, _ = host.asked[1]
    assert question == "Which model instead?" and options == ["free/m"]
    assert given.model == "free/m"
    assert json.loads((tmp_path / "settings.json").read_text())["model"] == "free/m"
    assert not (tmp_path / "auth.json").exists()


@pytest.mark.parametrize(
    ("pasted", "warned"),
    [
        ("sonnet-5-5", "it is only 10 characters long"),
        ("sk-abc def-0123456789xyz", "it has spaces in it"),
        ("sk-ant-api03-0123456789abcdefghij", None),
    ],
)
async def test_a_key_that_does_not_look_like_one_is_saved_with_a_warning(
    tmp_path: Path, pasted: str, warned: str | None
) -> None:
    scripted(tmp_path, api_key_env="S_KEY")
    warnings: list[str] = []
    assert await _fix(opts("s/test"), Answers(pasted), {}, tmp_path, tmp_path, warnings)  # type: ignore[arg-type]
    assert load_credentials(tmp_path) == {"S_KEY": pasted}
    if warned is None:
        assert warnings == []
    else:
        [warning] = warnings
        assert warning.startswith("S_KEY was saved, but it does not look like an API key")
        assert warned in warning


async def test_nothing_is_asked_when_the_problem_is_elsewhere(tmp_path: Path) -> None:
    host = Answers()
    assert await _fix(opts("nowhere/model"), host, {}, tmp_path, tmp_path) is False  # type: ignore[arg-type]
    scripted(tmp_path, api_key_env="S_KEY")
    assert await _fix(opts("s/test"), host, {"S_KEY": "set"}, tmp_path, tmp_path) is False  # type: ignore[arg-type]
    assert host.asked == []


def test_model_choices_put_the_current_and_declared_models_first() -> None:
    settings = {"providers": {"local": {"models": {"qwen": {}}}}}
    choices = model_choices(settings, "anthropic/claude-sonnet-4-5")
    assert choices[:2] == ["anthropic/claude-sonnet-4-5", "local/qwen"]
    assert len(choices) == len(set(choices))


# -- completion -------------------------------------------------------------------------------


def completions(completer: InputCompleter, text: str) -> list[str]:
    document = Document(text, len(text))
    return [c.text for c in completer.get_completions(document, CompleteEvent())]


def test_commands_complete_at_the_start(tmp_path: Path) -> None:
    commands = {"help": SimpleNamespace(description="list"), "model": None, "reload": None}
    completer = InputCompleter(lambda: commands, tmp_path)
    assert completions(completer, "/") == ["/help", "/model", "/reload"]
    assert completions(completer, "/mo") == ["/model"]
    assert completions(completer, "/model x") == []
    assert completions(completer, "say /mo") == []


def test_paths_complete_after_an_at_sign(tmp_path: Path) -> None:
    (tmp_path / "src" / "auger").mkdir(parents=True)
    (tmp_path / "src" / "setup.py").write_text("")
    (tmp_path / ".hidden").write_text("")
    (tmp_path / "README.md").write_text("")
    completer = InputCompleter(dict, tmp_path)
    assert completions(completer, "look at @") == ["README.md", "src/"]
    assert completions(completer, "look at @src/") == ["src/auger/", "src/setup.py"]
    assert completions(completer, "@src/se") == ["src/setup.py"]
    assert completions(completer, "@setup")[0] == "src/setup.py"  # a bare word: anywhere
    assert completions(completer, "@.") == [".hidden"]
    assert completions(completer, "@nowhere/") == []
    assert completions(completer, "mail me@") == []


def test_print_mode_imports_nothing_of_the_terminal(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script([{"text": "hi"}])
    code = (
        "import sys; from auger.cli import main; code = main(['-p', 'hello']); "
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'prompt_toolkit', 'pygments', 'wcwidth'} or m.startswith('auger.hosts.terminal')); "
        "sys.stderr.write(repr((code, mods)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.stdout == "hi\n"
    assert done.stderr == "(0, [])"
