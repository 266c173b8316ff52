"""The extensions in `examples/extensions/`, each loaded from its file and shown to work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.extensions.source import from_file
from auger.llm.provider import Model
from auger.llm.records import Record
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.llm.usage import Pricing, Usage
from auger.records import AfterToolCall, CommandOutput, Notify
from auger.runtime import Runtime
from auger.tools.base import tool
from support.cli import Project, json_lines
from support.context import conversation
from support.hosts import Answering
from support.runtime import collect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


@tool
def bash(command: str) -> str:
    """Pretend to run a command."""
    return f"ran: {command}"


@tool
def read(path: str) -> str:
    """Pretend to read a file."""
    return f"contents of {path}"


@tool
def write(path: str, content: str) -> str:
    """Pretend to write a file."""
    return f"wrote {path}"


def fake_tools(g: Any) -> None:
    """Stand-ins for the bundled tools, so nothing really runs."""
    for t in (bash, read, write):
        g.tool(t)


def make(tmp_path: Path, provider: ScriptedProvider, example: str, **options: Any) -> Runtime:
    """A Runtime with the fake tools and the example `example` loaded from its file."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    options.setdefault("settings", {})
    source = from_file(EXAMPLES / f"{example}.py")
    return Runtime(
        provider=provider,
        env={},
        home=home,
        cwd=cwd,
        bundled=False,
        extensions=[("fake_tools", fake_tools), source],
        **options,
    )


def results(records: list[Record]) -> list[tuple[str, str]]:
    """`(call_id, what the model was told)` of every tool call."""
    return [(r.call_id, r.result.content) for r in records if isinstance(r, AfterToolCall)]


def test_the_examples_are_short_and_say_what_they_show() -> None:
    files = sorted(EXAMPLES.glob("*.py"))
    assert [f.stem for f in files] == [
        "context_trimmer",
        "cost_limit",
        "custom_command",
        "custom_tool",
        "permission_gate",
        "read_only",
    ]
    for file in files:
        text = file.read_text()
        assert text.startswith('"""') and len(text.splitlines()) <= 30, file.name


async def test_permission_gate_asks_before_a_risky_command(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("bash", {"command": "ls -la"}, "c1"),
                Call("bash", {"command": "rm -rf build"}, "c2"),
                Call("bash", {"command": "sudo reboot"}, "c3"),
            ),
            Reply.of("ok"),
        ]
    )
    host = Answering(True, False)
    records = await collect(make(tmp_path, provider, "permission_gate", host=host), "go")
    assert results(records) == [
        ("c1", "ran: ls -la"),
        ("c2", "ran: rm -rf build"),
        ("c3", "ERROR: the user did not allow `sudo reboot`; find another way or ask them"),
    ]
    assert host.asked == [
        "Allow this command?\n  rm -rf build",
        "Allow this command?\n  sudo reboot",
    ]


async def test_permission_gate_blocks_when_the_host_cannot_ask(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("bash", {"command": "rm -rf /"}, "c1")), Reply.of("ok")]
    )
    records = await collect(make(tmp_path, provider, "permission_gate"), "go")
    assert results(records) == [
        ("c1", "ERROR: the user did not allow `rm -rf /`; find another way or ask them")
    ]


async def test_read_only_blocks_changes_and_says_so_up_front(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("read", {"path": "a.txt"}, "c1"),
                Call("write", {"path": "a.txt", "content": "x"}, "c2"),
                Call("bash", {"command": "touch a.txt"}, "c3"),
            ),
            Reply.of("ok"),
        ]
    )
    records = await collect(make(tmp_path, provider, "read_only"), "go")
    assert results(records) == [
        ("c1", "contents of a.txt"),
        ("c2", "ERROR: this session is read-only"),
        ("c3", "ERROR: this session is read-only"),
    ]
    assert "This session is read-only" in provider.requests[0].system


async def test_custom_tool_gets_its_schema_from_hints_and_docstring(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("word_count", {"path": "notes.txt"}, "c1"),
                Call("word_count", {"path": "missing.txt"}, "c2"),
            ),
            Reply.of("ok"),
        ]
    )
    rt = make(tmp_path, provider, "custom_tool")
    spec = rt.tools["word_count"].spec
    assert spec.description == "Count the lines, words and characters of a text file."
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "the file, relative to the project."}
        },
        "required": ["path"],
    }
    (rt.cwd / "notes.txt").write_text("one two\nthree\n")
    records = await collect(rt, "count")
    assert results(records) == [
        ("c1", "2 lines, 3 words, 14 chars"),
        ("c2", "cannot read missing.txt: No such file or directory"),
    ]
    failed = [r.result.error_type for r in records if isinstance(r, AfterToolCall)]
    assert failed == [None, "not_found"]


async def test_custom_command_says_then_prompts(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("No bugs found."), Reply.of("Clean.")])
    rt = make(tmp_path, provider, "custom_command")
    records = [r async for r in rt.run_command("review", "src/app.py")]
    said = [r.text for r in records if isinstance(r, CommandOutput)]
    assert said == ["Reviewing src/app.py…"]
    sent = conversation(provider.requests[0].messages)
    assert sent[0].text.startswith("Review src/app.py. List bugs first")
    assert [r.type for r in records].count("turn_end") == 1
    assert records[-1].text == "No bugs found."
    records = [r async for r in rt.run_command("review")]
    assert [r.text for r in records if isinstance(r, CommandOutput)] == [
        "Reviewing the uncommitted changes (run `git diff`)…"
    ]


async def test_context_trimmer_sends_only_the_recent_messages(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            Reply.of("a"),
            Reply.of(Call("read", {"path": "x"})),
            Reply.of("b"),
            Reply.of("c"),
        ]
    )
    settings = {"context_trimmer": {"keep": 3}}
    rt = make(tmp_path, provider, "context_trimmer", settings=settings)
    for prompt in ("one", "two", "three"):
        await collect(rt, prompt)
    sent = [[m.role for m in conversation(r.messages)] for r in provider.requests]
    assert sent == [
        ["user"],
        ["user", "assistant", "user"],
        ["user", "assistant", "tool"],  # cut forward to "two", so the call keeps its result
        ["user"],  # "three"
    ]
    assert provider.requests[3].messages[0].text == "three"
    assert len(conversation(rt.messages)) == 8


async def test_cost_limit_blocks_tools_once_the_budget_is_spent(tmp_path: Path) -> None:
    model = Model("scripted", "priced", "scripted", pricing=Pricing(input=1000.0, output=0.0))
    spend = Usage(400, 0)  # $0.40 a response
    provider = ScriptedProvider(
        [
            *[Reply.of(Call("read", {"path": "x"}, f"c{i}"), usage=spend) for i in (1, 2, 3)],
            Reply.of("Stopping.", usage=spend),
        ]
    )
    settings = {"cost_limit": {"max_usd": 1.0}}
    rt = make(tmp_path, provider, "cost_limit", settings=settings, model=model)
    records = await collect(rt, "go")
    blocked = "ERROR: the cost limit of $1.00 is spent; stop and summarize for the user"
    assert results(records) == [
        ("c1", "contents of x"),
        ("c2", "contents of x"),
        ("c3", blocked),
    ]
    notices = [(r.level, r.message) for r in records if isinstance(r, Notify)]
    assert notices == [("warning", "cost limit: $1.20 spent of $1.00")]


def test_every_example_under_p(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    (project.root / "notes.txt").write_text("one two\nthree four\n")
    project.script(
        [
            {"parts": [{"tool": "word_count", "args": {"path": "notes.txt"}, "id": "c1"}]},
            {"parts": [{"tool": "bash", "args": {"command": "rm -rf build"}, "id": "c2"}]},
            {"text": "Looks fine."},
        ]
    )
    flags = [a for f in sorted(EXAMPLES.glob("*.py")) for a in ("--extension", str(f))]
    result = project.run("-p", "--json", *flags, "/review notes.txt")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    assert {"type": "command_output", "command": "review", "text": "Reviewing notes.txt…"} in (
        records
    )
    told = [r["result"]["content"] for r in records if r["type"] == "after_tool_call"]
    assert told == [
        "2 lines, 4 words, 19 chars",
        "ERROR: the user did not allow `rm -rf build`; find another way or ask them",
    ]
    assert records[-1]["text"] == "Looks fine."
