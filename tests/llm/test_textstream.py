"""Text calls recovered as they stream: for every split of a reply into deltas (one character
each, every single cut, the tokens llama.cpp streams), the calls are those of the whole text."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import pytest

from auger.llm.provider import ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    ProviderNotice,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.textcalls import find_calls
from auger.llm.textstream import recover, watch
from auger.llm.usage import Usage
from support.llamacpp import tokens

SPECS = tuple(ToolSpec(n, "") for n in ("bash", "edit", "read", "write"))
NAMES = {s.name for s in SPECS}

EDIT = (
    'I\'ll fix the subtraction.\n```json\n{\n  "name": "edit",\n  "arguments": {\n'
    '    "path": "calc.py",\n    "old_string": "return a - b",\n'
    '    "new_string": "return a + b"\n  }\n}\n```'
)
# what the model wrote as its final answers in the evaluation, and what it might write next
REPLIES = [
    EDIT,
    '```json\n{"name": "bash", "arguments": {"command": "python -m pytest -q"}}\n```',
    '{"name": "read", "arguments": {"path": "textutils.py"}}',
    '<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>',
    'Run:\n```python\nprint(1)\n```\nthen\n```json\n{"name": "read", "arguments": {}}\n```',
    '```json\n{"name": "search_files", "arguments": {"q": "x"}}\n```\nThat is an example.',
    "Use `ls` or ``grep``; the answer is 42.",
    "```\n```\nnothing",
    "The <tool_call> tag is how Qwen calls tools.",
    '{"title": "not a call"} is JSON, and ```json\n{"name": "read", "arguments": {}}\n```',
    '```json\n[{"name": "read", "arguments": {"path": "a"}}, {"name": "bash"}]\n```\nDone.',
    '```json\n{"name": "write", "arguments": {"path": "t.py", "content": """\ndef f():\n'
    '    """Doc."""\n    return 1\n"""}}\n```',
    '```json\n{"name": "write", "arguments": {"path": "n.txt", "content": """one\ntwo"""}}\n```',
    "```JSON\n{'name': 'edit', 'arguments': {'path': 'a', 'old_string': 'x', "
    "'new_string': 'y',}}\n```",
    '```json5\n{"name": "read", "arguments": {}}\n```',
    '```json\n{"name": "read", "arguments": {"path": "a"}}',
    'Use ``x`` here.\n```json\n{"name": "read", "arguments": {"path": "b"}}\n```',
    '<tool_call>{"x": 1}</tool_call> then <tool_call>{"name": "bash", "arguments": {}}',
    '```json\n{"name": "read", "arguments": {}}\n```\nand\n```json\n{"name": "bash"}\n```',
    '\n\n[{"name": "read", "arguments": {"path": "c"}}]\n',
    "Plain words < and <tool and ``` and `` at the very end ``",
]


def splits(text: str) -> list[list[str]]:
    """Every way of cutting `text` this test tries."""
    cuts = [[text], list(text), tokens(text)]
    cuts += [[text[:i], text[i:]] for i in range(1, len(text))]
    return cuts


async def _source(pieces: list[str], log: list[str]) -> AsyncIterator[Record]:
    for piece in pieces:
        log.append("fed")
        yield TextDelta(piece)
    yield TextDone("".join(pieces))
    yield TokenUsageDone(Usage(5, 7))
    yield FinishReasonDone("stop", "stop")


async def _recover(
    pieces: list[str], found: Callable[[], None] | None = None
) -> tuple[list[Record], list[str]]:
    """The records out, and a log of `fed`s and streamed texts in the order they happened;
    with `found`, the fallback is off and only watching."""
    log: list[str] = []
    out: list[Record] = []
    source = _source(pieces, log)
    records = recover(source, SPECS) if found is None else watch(source, SPECS, found)
    async for record in records:
        out.append(record)
        if isinstance(record, TextDelta):
            log.append(record.content)
    return out, log


def _calls(out: list[Record]) -> list[tuple[str, str]]:
    return [(r.name, r.arguments) for r in out if isinstance(r, ToolCallDone)]


@pytest.mark.parametrize("text", REPLIES, ids=range(len(REPLIES)))
async def test_every_split_finds_the_calls_of_the_whole_text(text: str, check) -> None:
    _, expected = find_calls(text, NAMES)
    for pieces in splits(text):
        out, _ = await _recover(pieces)
        check(out)
        assert _calls(out) == [(c.name, c.arguments) for c in expected], pieces
        streamed = "".join(r.content for r in out if isinstance(r, TextDelta))
        if not expected:
            assert streamed == text, pieces


def test_the_recorded_calls_are_found_in_the_whole_text() -> None:
    found = {i: [c.name for c in find_calls(t, NAMES)[1]] for i, t in enumerate(REPLIES)}
    assert found == {
        0: ["edit"], 1: ["bash"], 2: ["read"], 3: ["read"], 4: ["read"], 5: [], 6: [], 7: [],
        8: [], 9: ["read"], 10: ["read", "bash"], 11: ["write"], 12: ["write"], 13: ["edit"],
        14: [], 15: [], 16: ["read"], 17: ["bash"], 18: ["read", "bash"], 19: ["read"], 20: [],
    }  # fmt: skip


async def test_the_text_before_a_call_streams_before_the_call_is_complete() -> None:
    _, log = await _recover(tokens(EDIT))
    at = log.index("\n") if "\n" in log else log.index(".\n")
    streamed = "".join(e for e in log[: at + 1] if e != "fed")
    assert streamed == "I'll fix the subtraction.\n"
    assert log.count("fed") > log[:at].count("fed") + 20  # long before the call is complete


async def test_a_fence_that_is_no_call_streams_once_its_first_character_arrives() -> None:
    pieces = ["Here:\n", "```", "python", "\n", "print", "(1)", "\n", "```"]
    _, log = await _recover(pieces)
    fed = [i for i, entry in enumerate(log) if entry == "fed"]
    # the fence, its tag and the newline leave it undecided; `print` decides it is no call
    assert all(e == "fed" for e in log[fed[1] : fed[4]])
    assert log[fed[4] + 1] == "```python\nprint"
    assert "".join(e for e in log if e != "fed") == "".join(pieces)


async def test_a_tag_that_is_no_call_streams_once_its_first_character_arrives() -> None:
    _, log = await _recover(["The ", "<tool_call>", " tag", " is", " Qwen's."])
    assert log[:6] == ["fed", "The ", "fed", "fed", "<tool_call> tag", "fed"]


async def test_a_json_reply_that_is_no_call_streams_once_it_closes() -> None:
    _, log = await _recover(['{"title":', ' "not a call"', "}", " more"])
    assert log[:5] == ["fed", "fed", "fed", '{"title": "not a call"}', "fed"]


async def test_watching_streams_everything_and_turns_the_fallback_on_at_a_call(check) -> None:
    seen: list[bool] = []
    out, log = await _recover(tokens(EDIT), found=lambda: seen.append(True))
    check([r for r in out if not isinstance(r, ProviderNotice)])
    assert "".join(e for e in log if e != "fed") == EDIT  # nothing held
    assert [name for name, _ in _calls(out)] == ["edit"] and seen == [True]
    notice = next(r for r in out if isinstance(r, ProviderNotice))
    assert "tool_call_fallback" in notice.message
    assert out[-1] == FinishReasonDone("tool_calls", "stop")


async def test_watching_a_reply_without_calls_changes_nothing() -> None:
    seen: list[bool] = []
    text = "The answer is 42."
    out, _ = await _recover(list(text), found=lambda: seen.append(True))
    assert not seen and not _calls(out)
    assert [r.content for r in out if isinstance(r, TextDone)] == [text]


def test_unambiguous_triple_quotes_become_one_json_string() -> None:
    (call,) = find_calls(REPLIES[12], NAMES)[1]
    assert json.loads(call.arguments) == {"path": "n.txt", "content": "one\ntwo"}


def test_ambiguous_triple_quotes_make_a_call_that_cannot_run() -> None:
    (call,) = find_calls(REPLIES[11], NAMES)[1]
    assert call.name == "write"
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.arguments)  # the dispatch refuses it (tests/engine/test_dispatch_args)
