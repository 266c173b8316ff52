"""Streams a small model wrote its calls in (fenced JSON to `read`, `edit`, `write`, `bash`),
split at token boundaries as llama.cpp streams them, served verbatim on 127.0.0.1: through
`auger -p` with a declared Chat Completions provider and default settings, and through the
in-process `local/` provider. Each call runs and its result reaches the model's next request;
a `write` in Python triple quotes leaves the file intact and the model is told why; a final
answer that is an unexecuted call says so."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from auger.llm.local import LocalProvider
from auger.llm.provider import Model
from auger.records import Notify, TurnEnd
from auger.tools.builtin import extensions
from support.cli import Project, json_lines
from support.llamacpp import streamed
from support.runtime import collect, make_runtime
from support.server import FakeServer, Seen

CALC = "def add(a, b):\n    return a - b\n"
EDIT = {"old_string": "return a - b", "new_string": "return a + b"}
TEXTUTILS = "def word_count(text):\n    return len(text.split())\n"


def fenced(name: str, arguments: dict[str, Any], before: str = "") -> str:
    """A call as the model wrote it: pretty-printed JSON in a `json` fence."""
    body = json.dumps({"name": name, "arguments": arguments}, indent=2)
    return f"{before}```json\n{body}\n```"


@dataclass(frozen=True)
class Case:
    """A project's files, the replies that play, and the tools the CLI run allows."""

    files: dict[str, str]
    replies: list[str]
    tools: str = "read,edit,write,bash"
    extra: dict[str, Any] = field(default_factory=dict)


FIX = Case(
    {"calc.py": CALC},
    [
        fenced("read", {"path": "calc.py"}, "I'll read the file first.\n"),
        fenced("edit", {"path": "calc.py", **EDIT}),
        fenced("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"}),
        "Fixed: add returns a + b, and add(2, 3) prints 5.",
    ],
)
TRIPLE = Case(
    {"textutils.py": TEXTUTILS},
    [
        '```json\n{"name": "write", "arguments": {"path": "textutils.py", "content": """\n'
        'def slugify(text):\n    """Lower-case, dashes for spaces."""\n'
        '    return text.lower().replace(" ", "-")\n"""}}\n```',
        "I could not write the file.",
    ],
)
UNEXECUTED = Case(
    {}, ['To run the tests:\n```json\n{"tool": "bash", "args": {"command": "pytest -q"}}\n```']
)


def _tool_messages(seen: Seen) -> list[dict[str, Any]]:
    return [m for m in seen.body["messages"] if m["role"] == "tool"]


def _check_fix(root: Path, requests: list[Seen]) -> None:
    assert (root / "calc.py").read_text() == CALC.replace("a - b", "a + b")
    assert len(requests) == 4
    # each result reached the model in the very next request
    assert "return a - b" in _tool_messages(requests[1])[-1]["content"]
    assert "a + b" in _tool_messages(requests[2])[-1]["content"]
    assert "5" in _tool_messages(requests[3])[-1]["content"].split()
    assert len(_tool_messages(requests[3])) == 3


def _check_triple(root: Path, requests: list[Seen]) -> None:
    assert (root / "textutils.py").read_text() == TEXTUTILS  # intact
    told = _tool_messages(requests[1])[-1]["content"]
    assert "triple quotes" in told and "`content`" in told and "one JSON string" in told


class Cli:
    """`auger -p` against the replies on a loopback server, default settings."""

    def __init__(self, tmp_path: Path, server: FakeServer) -> None:
        self.project = Project.make(tmp_path)
        self.server = server
        provider = {"api": "chat-completions", "base_url": f"{server.url}/v1"}
        self.project.settings(
            {
                "model": "llama/qwen2.5-coder-1.5b-instruct",
                "providers": {"llama": provider},
                "permissions": {"mode": "auto"},  # the file tools ask otherwise; not what is tested
            }
        )

    def run(self, case: Case, *flags: str) -> list[dict[str, Any]]:
        for name, text in case.files.items():
            (self.project.root / name).write_text(text)
        self.server.queue(*(streamed(text) for text in case.replies))
        result = self.project.run(
            "-p", *flags, "--no-save", "--tools", case.tools, "Fix the project.", timeout=60
        )
        assert result.returncode == 0, result.stderr
        return json_lines(result.stdout)


def test_fenced_calls_run_and_their_results_reach_the_model(tmp_path: Path) -> None:
    with FakeServer() as server:
        records = Cli(tmp_path, server).run(FIX, "--json")
        _check_fix(tmp_path / "project", server.requests)
    assert [r["name"] for r in records if r["type"] == "tool_call_done"] == ["read", "edit", "bash"]
    assert records[-1]["stop_reason"] == "completed" and "unexecuted_calls" not in records[-1]


def test_a_triple_quoted_write_leaves_the_file_and_says_why(tmp_path: Path) -> None:
    with FakeServer() as server:
        records = Cli(tmp_path, server).run(TRIPLE, "--json")
        _check_triple(tmp_path / "project", server.requests)
    after = next(r for r in records if r["type"] == "after_tool_call")
    assert after["result"]["error_type"] == "validation_error"
    assert "before_tool_call" not in [r["type"] for r in records]


def test_a_final_answer_that_is_an_unexecuted_call_is_reported(tmp_path: Path) -> None:
    with FakeServer() as server:
        cli = Cli(tmp_path, server)
        records = cli.run(UNEXECUTED, "--json")
        (result,) = cli.run(UNEXECUTED, "--output-format", "json")
    warnings = [r["message"] for r in records if r["type"] == "notify"]
    assert any("bash" in w and "did not run" in w for w in warnings)
    assert records[-1]["unexecuted_calls"] == ["bash"]
    assert result["unexecuted_calls"] == ["bash"] and result["stop_reason"] == "completed"


# --- the in-process local provider, its llama.cpp server stood in for by the same replies ----


async def _local(tmp_path: Path, server: FakeServer, case: Case) -> list[Any]:
    gguf = tmp_path / "qwen.gguf"
    gguf.write_bytes(b"GGUF")
    provider = LocalProvider("local", starter=lambda *_: (None, f"{server.url}/v1"))
    model = Model("local", str(gguf), "llamacpp", context_window=8192)
    builtin = [e for _, e in extensions()]
    rt = make_runtime(
        tmp_path, provider, model=model, extensions=builtin, tools=case.tools.split(",")
    )  # type: ignore[arg-type]
    for name, text in case.files.items():
        (tmp_path / "project" / name).write_text(text)
    server.queue(*(streamed(text) for text in case.replies))
    try:
        return await collect(rt, "Fix the project.")
    finally:
        await rt.close()


@pytest.mark.parametrize("case", ["fix", "triple", "unexecuted"])
async def test_the_local_provider_passes_the_same_cases(tmp_path: Path, case: str) -> None:
    with FakeServer() as server:
        played = {"fix": FIX, "triple": TRIPLE, "unexecuted": UNEXECUTED}[case]
        records = await _local(tmp_path, server, played)
        root = tmp_path / "project"
        if case == "fix":
            _check_fix(root, server.requests)
        elif case == "triple":
            _check_triple(root, server.requests)
    end = records[-1]
    assert isinstance(end, TurnEnd) and end.stop_reason == "completed"
    if case == "unexecuted":
        assert end.unexecuted_calls == ("bash",)
        assert any("did not run" in r.message for r in records if isinstance(r, Notify))
