"""The typing of the extension API: mypy, run on extension files as their authors would run it,
accepts a handler of the right event and return and rejects one of the wrong event or the wrong
return; error kinds and tool error types are closed sets.

One `mypy --strict` run checks every example file (a module fixture); each test reads what it
said about one file.
"""

from __future__ import annotations

import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from auger import events, records
from auger.engine.registry import EVENT_NAMES
from auger.extensions.on import Subscriptions
from auger.llm import server_tools

pytestmark = pytest.mark.slow

EXAMPLES = {
    "right.py": """
from typing import Literal

from auger import Context, Registrar
from auger.events import BeforeProviderRequest, BeforeProviderRequestResult, ToolCallEvent
from auger.records import TurnEnd


def gate(event: ToolCallEvent) -> str | None:
    return "this session is read-only" if event.name in ("write", "edit") else None


async def ask(event: ToolCallEvent, ctx: Context) -> Literal[False] | None:
    return None if await ctx.confirm(f"run {event.name}?") else False


def retarget(event: ToolCallEvent) -> dict[str, object]:
    return event.input | {"path": "elsewhere"}


def team(event: BeforeProviderRequest) -> BeforeProviderRequestResult:
    return {"headers": {"x-team": "auger"}}


def ended(event: TurnEnd) -> None:
    print(event.stop_reason)


def extension(g: Registrar) -> None:
    g.on("tool_call", gate)
    g.on("tool_call", ask)
    g.on("tool_call", retarget)
    g.on("tool_call", lambda e: "no" if e.name == "bash" else None)
    g.on("before_provider_request", team)
    g.on("turn_end", ended)
""",
    "wrong_return.py": """
from auger import Registrar
from auger.events import ToolCallEvent


def count(event: ToolCallEvent) -> int:
    return len(event.name)


def extension(g: Registrar) -> None:
    g.on("tool_call", count)
""",
    "wrong_event.py": """
from auger import Registrar
from auger.events import ToolEnd


def finished(event: ToolEnd) -> None:
    print(event.result)


def extension(g: Registrar) -> None:
    g.on("tool_call", finished)
""",
    "wrong_async_return.py": """
from auger import Context, Registrar
from auger.events import ToolCallEvent


async def allow(event: ToolCallEvent, ctx: Context) -> bool:
    return True


def extension(g: Registrar) -> None:
    g.on("tool_call", allow)
""",
    "observer_returns.py": """
from auger import Registrar
from auger.records import TurnEnd


def summary(event: TurnEnd) -> str:
    return event.text


def extension(g: Registrar) -> None:
    g.on("turn_end", summary)
""",
    "wrong_context.py": """
from auger import Registrar
from auger.events import ToolCallEvent
from auger.tools.base import ToolContext


def gate(event: ToolCallEvent, ctx: ToolContext) -> None:
    print(ctx.cwd)


def extension(g: Registrar) -> None:
    g.on("tool_call", gate)
""",
    "error_kinds.py": """
from auger import ProviderError, ToolError


def fail_a_call() -> None:
    raise ProviderError("timeout", "the model took too long")


def fail_a_tool() -> None:
    raise ToolError("oops", "the tool broke")


def fail_right() -> None:
    raise ToolError("not_found", "no such file") from ProviderError("network", "unreachable")
""",
    "turn_error.py": """
from auger import Registrar
from auger.records import TurnEnd


def ended(event: TurnEnd) -> None:
    if event.error is not None and event.error["kind"] == "rate_limit":
        print("slow down")
    if event.error is not None and event.error["kind"] == "timeout":
        print("never")


def extension(g: Registrar) -> None:
    g.on("turn_end", ended)
""",
    "tool_context.py": """
from pathlib import Path

from auger import ToolContext
from auger.records import Notify


def seen(path: Path, ctx: ToolContext) -> bool:
    return ctx.files is not None and ctx.files.seen(path)


async def tell(ctx: ToolContext) -> None:
    if ctx.agent is not None:
        await ctx.agent.publish(Notify("done"))


def unguarded(path: Path, ctx: ToolContext) -> bool:
    return ctx.files.seen(path)
""",
    "registrar_calls.py": '''
from typing import assert_type

from auger import Context, Registrar, Tool, tool


@tool
def shout(text: str) -> str:
    """Shout."""
    return text.upper()


assert_type(shout, Tool)


async def hello(ctx: Context) -> None:
    await ctx.say("hello")


def extension(g: Registrar) -> None:
    g.tool(shout)
    g.command("hello", hello)
    g.mcp("time", command="uvx", args=["mcp-server-time"])
    g.mcp("web", url="http://127.0.0.1:9/mcp", header={"a": "b"})
''',
    "lambda_returns.py": """
from auger import Registrar


def extension(g: Registrar) -> None:
    g.on("tool_call", lambda e: 3)
""",
}

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The typed handler the README's extension section shows."""
    text = README.read_text()
    start = text.index("`g.on` is typed per event")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None, "the README's typed handler example is missing"
    return block[1]


EXAMPLES["readme.py"] = readme_example()

LINE = re.compile(r"^(?P<file>[\w.]+):(?P<line>\d+): (?P<level>error|note): (?P<text>.*)$")


@pytest.fixture(scope="module")
def mypy_said(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, str]]]:
    """What `mypy --strict` reported, by file: (line, error) pairs."""
    folder = tmp_path_factory.mktemp("typed_extensions")
    for name, text in EXAMPLES.items():
        (folder / name).write_text(text.lstrip())
    # no config and no cache: the example files are read as a plain project of their own
    flags = ["--strict", "--no-error-summary", "--no-pretty", "--config-file="]
    flags.append("--cache-dir=/dev/null")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *flags, *EXAMPLES],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    said: dict[str, list[tuple[int, str]]] = {name: [] for name in EXAMPLES}
    for line in done.stdout.splitlines():
        match = LINE.match(line)
        assert match is not None or line.startswith(" "), line
        if match is not None and match["level"] == "error":
            said[match["file"]].append((int(match["line"]), match["text"]))
    return said


def line_of(name: str, text: str) -> int:
    """The line of example `name` that holds `text`."""
    lines = EXAMPLES[name].lstrip().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_handlers_of_the_right_event_and_return_pass(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    assert mypy_said["right.py"] == []


def test_the_readme_s_typed_handler_passes(mypy_said: dict[str, list[tuple[int, str]]]) -> None:
    assert mypy_said["readme.py"] == []


def test_a_handler_returning_the_wrong_type_is_rejected(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["wrong_return.py"]
    assert line == line_of("wrong_return.py", 'g.on("tool_call", count)')
    assert '"Callable[[ToolCallEvent], int]"' in text and "[call-overload]" in text


def test_a_handler_taking_the_wrong_event_is_rejected(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["wrong_event.py"]
    assert line == line_of("wrong_event.py", 'g.on("tool_call", finished)')
    assert '"Callable[[ToolEnd], None]"' in text and "[call-overload]" in text


def test_an_async_handler_is_held_to_the_same_return(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    # `True` is not something `tool_call` takes: only `False` ends the chain
    [(line, text)] = mypy_said["wrong_async_return.py"]
    assert line == line_of("wrong_async_return.py", 'g.on("tool_call", allow)')
    assert "Coroutine[Any, Any, bool]" in text and "[call-overload]" in text


def test_an_observe_only_handler_returning_a_value_is_rejected(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["observer_returns.py"]
    assert line == line_of("observer_returns.py", 'g.on("turn_end", summary)')
    assert '"Callable[[TurnEnd], str]"' in text


def test_a_handler_expecting_another_context_is_rejected(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["wrong_context.py"]
    assert line == line_of("wrong_context.py", 'g.on("tool_call", gate)')
    assert '"Callable[[ToolCallEvent, ToolContext], None]"' in text


def test_a_lambda_is_held_to_its_event_return(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["lambda_returns.py"]
    assert line == line_of("lambda_returns.py", "lambda e: 3")
    assert "int]" in text and "[call-overload]" in text


def test_an_error_kind_or_tool_error_type_outside_the_closed_sets_is_rejected(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(provider, kind), (tool, tool_type)] = mypy_said["error_kinds.py"]
    assert provider == line_of("error_kinds.py", '"timeout"')
    assert "incompatible type \"Literal['timeout']\"" in kind and "[arg-type]" in kind
    assert tool == line_of("error_kinds.py", '"oops"')
    assert "incompatible type \"Literal['oops']\"" in tool_type


def test_a_turn_error_kind_is_one_of_the_closed_set(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["turn_error.py"]
    assert line == line_of("turn_error.py", '"timeout"')
    assert "Non-overlapping equality check" in text and "[comparison-overlap]" in text


def test_a_tool_context_field_has_its_own_type(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    [(line, text)] = mypy_said["tool_context.py"]
    assert line == line_of("tool_context.py", "return ctx.files.seen(path)")
    assert 'Item "None" of "FileReads | None" has no attribute "seen"' in text


def test_the_registrar_s_other_calls_are_typed(
    mypy_said: dict[str, list[tuple[int, str]]],
) -> None:
    # `@tool` gives a `Tool` (`assert_type` holds), and an MCP server's keys are checked
    [(line, text)] = mypy_said["registrar_calls.py"]
    assert line == line_of("registrar_calls.py", "header=")
    assert 'Unexpected keyword argument "header"' in text


def test_every_event_name_has_one_overload_for_its_own_type() -> None:
    kinds = {
        kind.type: kind
        for group in (events.EVENT_TYPES, records.PROVIDER_RECORDS, records.RUNTIME_RECORDS)
        for kind in group
    }
    typed: dict[str, str] = {}
    for variant in typing.get_overloads(Subscriptions.on):
        hints = variant.__annotations__
        name = re.fullmatch(r"Literal\['(\w+)'\]", hints["event"])
        handled = re.fullmatch(r"HandlerOf\[(\w+)\.(\w+), (\w+)\.(\w+)\]", hints["handler"])
        assert name is not None and handled is not None, hints
        assert name[1] not in typed, f"two overloads for {name[1]}"
        module = {"ev": events, "rec": records, "st": server_tools}[handled[1]]
        typed[name[1]] = handled[2]
        assert getattr(module, handled[2]) is kinds[name[1]]
        assert hasattr(events, handled[4])  # the return it is held to is one events.py names
    assert set(typed) == set(EVENT_NAMES)
