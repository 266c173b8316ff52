"""Tool calls a server did not parse: calls a model wrote as text, turned into real calls.

Two formats, both well defined:

- Qwen/Hermes tags, `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (the closing tag
  may be missing at the end of the reply). A tag is the model's own call syntax, so every tagged
  object with a `name` is a call — an invented name included: the dispatch answers it with an
  `unknown_tool` error that lists the real tools, which is what the model needs to recover.
- A JSON object `{"name": …, "arguments": {…}}` (or a list of them) in a fenced block, or as the
  whole reply. JSON is also what a model shows as an example, so it is a call only when every
  `name` is a registered tool; otherwise it stays text.

`arguments` (or Llama's `parameters`) must be an object, or a string holding one. JSON that is
almost JSON (single quotes, trailing commas, a missing brace) is repaired with `json-repair`.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Collection
from typing import Any

import msgspec

from auger.llm.provider import ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
)

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[a-zA-Z_]*[ \t]*\n?(.*?)```", re.DOTALL)


class TextCall(msgspec.Struct, frozen=True):
    """One call found in text: a tool name and its arguments as a JSON object's text."""

    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "arguments": self.arguments}


def loads(text: str) -> Any:
    """`text` as JSON, repaired when it is almost JSON; `None` when nothing can be made of it."""
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        pass
    from json_repair import loads as repair  # a small pure-Python library, imported on need

    try:
        value = repair(text)
    except Exception:  # the library's own failures: the text is not JSON-like at all
        return None
    return value if isinstance(value, dict | list) else None


def repair_arguments(arguments: str) -> str | None:
    """`arguments` as a JSON object's text, repaired; `None` when they are no object at all."""
    value = loads(arguments) if arguments.strip() else {}
    return json.dumps(value) if isinstance(value, dict) else None


def _call(value: Any) -> TextCall | None:
    if not isinstance(value, dict) or not isinstance(name := value.get("name"), str) or not name:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        arguments = loads(arguments) if arguments.strip() else {}
    if not isinstance(arguments, dict):
        return None
    return TextCall(name, json.dumps(arguments))


def _calls(payload: str) -> list[TextCall] | None:
    value = loads(payload)
    items = value if isinstance(value, list) else [value]
    calls = [_call(item) for item in items]
    if not calls or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def find_calls(text: str, tools: Collection[str]) -> tuple[str, tuple[TextCall, ...]]:
    """The calls written in `text` and the text left around them (see the module's rules)."""
    tagged: list[TextCall] = []
    rest = text
    for match in _TAGGED.finditer(text):
        found = _calls(match.group(1))
        if found:
            tagged += found
            rest = rest.replace(match.group(0), "", 1)
    if tagged:
        return rest.strip(), tuple(tagged)
    fenced: list[TextCall] = []
    blocks: list[re.Match[str] | None] = [*_FENCED.finditer(text)] or [None]
    for block in blocks:
        payload = block.group(1) if block else text.strip()
        if block is None and not payload.startswith(("{", "[")):
            break
        found = _calls(payload)
        if found and all(c.name in tools for c in found):
            fenced += found
            rest = rest.replace(block.group(0), "", 1) if block else ""
    return (rest.strip(), tuple(fenced)) if fenced else (text, ())


_MARKERS = ("<tool_call>", "```")
_OPENING = re.compile(r"```[a-zA-Z_]*[ \t]*\n?\s*(\S)")


def _partial(text: str) -> int:
    """How many characters at the end of `text` may begin a marker."""
    for size in range(min(len(text), max(map(len, _MARKERS)) - 1), 0, -1):
        if any(m.startswith(text[-size:]) for m in _MARKERS):
            return size
    return 0


class _Block:
    """One text block: what streamed live, and what is held back because it may be a call."""

    def __init__(self) -> None:
        self.live = ""
        self.pending = ""  # the end of the live text that may begin a marker
        self.held = ""

    def feed(self, piece: str, names: Collection[str]) -> str:
        """Take one delta; the text to stream now."""
        if self.held:
            self.held += piece
            return self._release(names)
        text = self.pending + piece
        if not self.live and text.lstrip().startswith(("{", "[")):
            self.pending, self.held = "", text  # a whole reply that may be a JSON call
            return ""
        if not self.live and not text.strip():
            self.pending = text
            return ""
        found = [i for i in (text.find(m) for m in _MARKERS) if i >= 0]
        cut = min(found) if found else len(text) - _partial(text)
        out, rest = text[:cut], text[cut:]
        self.live += out
        self.pending, self.held = ("", rest) if found else (rest, "")
        return out + (self._release(names) if found else "")

    def _release(self, names: Collection[str]) -> str:
        """Stream the held text once it is plainly not a call: a fence opening on anything but
        JSON, or a closed fence whose JSON calls no registered tool."""
        held = self.held
        if not held.startswith("```"):
            return ""
        opening = _OPENING.match(held)
        closed = held.count("```") >= 2
        if opening and opening.group(1) in "{[" and not (closed and not find_calls(held, names)[1]):
            return ""
        if not opening and not closed:
            return ""
        self.held = ""
        self.live += held
        return held

    def finish(
        self, calls_allowed: bool, names: Collection[str]
    ) -> tuple[str, str, tuple[TextCall, ...]]:
        """(the text still to stream, the block's whole text, the calls it holds)."""
        tail = self.pending + self.held
        rest, calls = find_calls(tail, names) if calls_allowed and self.held else (tail, ())
        if calls:
            tail = rest if not self.live or not rest else "\n" + rest
        return tail, self.live + tail, calls


async def recover(
    records: AsyncIterator[Record], tools: tuple[ToolSpec, ...]
) -> AsyncGenerator[Record, None]:
    """`records` with text that holds tool calls turned into `tool_call_delta`/`tool_call_done`.

    Text streams live up to the point where a call may begin (`<tool_call>`, a fence opening on
    JSON, a reply that opens with `{`); from there it is held until it is plainly not a call, or
    the response ends. A response that made native calls keeps its text as it is; so does one
    cut short (`length`), since its last call may be cut too.
    """
    names = {t.name for t in tools}
    block = _Block()
    waiting: list[_Block] = []  # closed blocks with held text, decided at the response's end
    usage: TokenUsageDone | None = None  # the last two records stay usage, then finish
    native = False
    made = 0
    step = secrets.token_hex(4)

    def settle(calls_allowed: bool) -> list[Record]:
        nonlocal made
        out: list[Record] = []
        for held in waiting:
            tail, whole, calls = held.finish(calls_allowed, names)
            if tail:
                out.append(TextDelta(tail))
            if whole:
                out.append(TextDone(whole))
            for call in calls:
                made += 1
                call_id = f"call_text_{step}_{made}"
                out += [
                    ToolCallDelta(call_id, call.name, call.arguments),
                    ToolCallDone(call_id, call.name, call.arguments),
                ]
        waiting.clear()
        return out

    async for record in records:
        if isinstance(record, TextDelta) and not native:
            if live := block.feed(record.content, names):
                yield TextDelta(live)
        elif isinstance(record, TextDone) and not native:
            if block.held or block.pending:
                waiting.append(block)
            else:
                yield record
            block = _Block()
        elif isinstance(record, ToolCallDelta | ToolCallDone):
            if not native:
                native = True
                for settled in settle(False):
                    yield settled
            yield record
        elif isinstance(record, TokenUsageDone):
            usage = record
        elif isinstance(record, FinishReasonDone):
            for settled in settle(record.finish_reason == "stop"):
                yield settled
            if usage is not None:
                yield usage
                usage = None
            yield FinishReasonDone("tool_calls", record.raw) if made else record
        else:
            yield record
    for settled in settle(False):  # a stream that ended without its finish reason
        yield settled
    if usage is not None:
        yield usage
