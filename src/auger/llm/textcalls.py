"""Tool calls a server did not parse: calls a model wrote as text, found in a whole reply.

Two formats, both well defined:

- Qwen/Hermes tags, `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (the closing tag
  may be missing at the end of the reply). A tag is the model's own call syntax, so every tagged
  object with a `name` is a call — an invented name included: the dispatch answers it with an
  `unknown_tool` error that lists the real tools, which is what the model needs to recover.
- A JSON object `{"name": …, "arguments": {…}}` (or a list of them) in a fenced block, or as the
  whole reply. JSON is also what a model shows as an example, so it is a call only when every
  `name` is a registered tool; otherwise it stays text.

A payload is a call only if it opens with `{` or `[` (the rule `auger.llm.textstream` decides
by as text streams). `arguments` (or Llama's `parameters`) must be an object, or a string
holding one. Python triple-quoted strings become JSON strings when that is unambiguous; other
almost-JSON is repaired with `json-repair`, and a repair that would lose or invent something
(`arguments.repair_loss`) makes a call whose arguments are the model's own text, which the
dispatch refuses, saying what was wrong, so it never runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import msgspec

from auger.llm.arguments import python_strings, repair_loss, repaired

_TAGGED = re.compile(
    r"<tool_call>\s*((?:(?!<tool_call>).)*?)\s*(?:</tool_call>|(?=<tool_call>)|$)", re.DOTALL
)
_FENCED = re.compile(r"```[a-zA-Z_]*[ \t]*\n?(.*?)```", re.DOTALL)
_NAME = re.compile(r"[\"']name[\"']\s*:\s*[\"']([^\"'\n]+)[\"']")


class TextCall(msgspec.Struct, frozen=True):
    """One call found in text: a tool name and its arguments as a JSON object's text."""

    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "arguments": self.arguments}


class JsonScan:
    """Finds where a JSON value ends in text that arrives in pieces (each piece read once)."""

    def __init__(self) -> None:
        self.read = 0  # characters read so far
        self.end: int | None = None
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def feed(self, text: str) -> int | None:
        """`text` is all of it so far (what was read before, then more): where the value that
        opens it ends, or `None` while it is open."""
        if self.end is not None:
            return self.end
        for index in range(self.read, len(text)):
            char = text[index]
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif char == "\\":
                    self.escaped = True
                elif char == '"':
                    self.in_string = False
            elif char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    self.end = index + 1
                    return self.end
        self.read = len(text)
        return None


def json_end(text: str) -> int | None:
    """Where the JSON value that opens `text` ends; `None` while it is open."""
    return JsonScan().feed(text)


def _call(value: Any) -> TextCall | None:
    if not isinstance(value, dict) or not isinstance(name := value.get("name"), str) or not name:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        arguments = repaired(arguments) if arguments.strip() else {}
    if not isinstance(arguments, dict):
        return None
    return TextCall(name, json.dumps(arguments))


def _calls(payload: str) -> list[TextCall] | None:
    payload = payload.strip()
    if not payload.startswith(("{", "[")):
        return None
    try:
        value = msgspec.json.decode(payload)
    except (msgspec.DecodeError, RecursionError):
        converted = python_strings(payload)
        if converted is None:  # triple quotes that cannot be told apart from their content
            names = _NAME.findall(payload)
            return [TextCall(n, payload) for n in names] or None
        value = repaired(converted)
        if repair_loss(converted, value) is not None:
            calls = [_call(item) for item in (value if isinstance(value, list) else [value])]
            return [TextCall(c.name, payload) for c in calls if c is not None] or None
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
    if bare(text.strip()):
        found = _calls(text)
        return ("", tuple(found)) if found and all(c.name in tools for c in found) else (text, ())
    fenced: list[TextCall] = []
    for block in _FENCED.finditer(text):
        found = _calls(block.group(1))
        if found and all(c.name in tools for c in found):
            fenced += found
            rest = rest.replace(block.group(0), "", 1)
    return (rest.strip(), tuple(fenced)) if fenced else (text, ())


def bare(text: str) -> bool:
    """Whether `text` may be a whole reply of JSON: it opens with `{`/`[` and nothing but blanks
    follows the value (which may still be open)."""
    if not text.startswith(("{", "[")):
        return False
    end = json_end(text)
    return end is None or not text[end:].strip()


_NAMED = re.compile(r"[\"'](?:name|tool|tool_name|function)[\"']\s*:\s*[\"']([\w.-]+)[\"']")


def unexecuted(text: str, tools: Collection[str]) -> list[str]:
    """The registered tools that `text` looks like it calls (a call found in it, or JSON naming
    a tool under `name`/`tool`/`function`): in a final answer, calls that never ran."""
    found = [c.name for c in find_calls(text, tools)[1]] + _NAMED.findall(text)
    return [name for name in dict.fromkeys(found) if name in tools]
