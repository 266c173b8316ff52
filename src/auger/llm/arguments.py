"""A tool call's raw JSON arguments as a dict, safely: never a RecursionError, however deep."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec

MAX_DEPTH = 100
"""The deepest nesting of lists and objects accepted in tool arguments (real tools use a few)."""

_decode = msgspec.json.decode


class TooDeep(ValueError):
    """Arguments nested deeper than `MAX_DEPTH`: no server or tool is ever handed them."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")


def depth(value: Any) -> int:
    """How deeply lists and dicts nest in `value` (a scalar is 0), computed without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def parse_arguments(raw: str) -> dict[str, Any]:
    """The arguments a model sent as a dict; empty text gives `{}`.

    Raises `ValueError` saying why when they are not a JSON object, `TooDeep` when they nest
    deeper than `MAX_DEPTH`.
    """
    if not raw.strip():
        return {}
    try:
        value = _decode(raw)
    except RecursionError:
        raise TooDeep from None
    except msgspec.DecodeError as exc:
        hint = malformed(raw)
        raise ValueError(f"not valid JSON ({exc})" + (f"; {hint}" if hint else "")) from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    if depth(value) > MAX_DEPTH:
        raise TooDeep
    return value


def too_deep(raw: str) -> bool:
    """Whether the JSON text `raw` nests deeper than `MAX_DEPTH` (text that is no JSON at all
    is not: it is only sent back as `{}`)."""
    if raw.count("[") + raw.count("{") <= MAX_DEPTH:  # too few brackets to be too deep
        return False
    try:
        parse_arguments(raw)
    except TooDeep:
        return True
    except ValueError:
        return False
    return False


def arguments_or_empty(raw: str) -> dict[str, Any]:
    """The arguments as a dict, or `{}` when they cannot be used (history being replayed)."""
    try:
        return parse_arguments(raw)
    except ValueError:
        return {}


def repaired(text: str) -> Any:
    """`text` as JSON, repaired with `json-repair` when it is almost JSON (single quotes,
    trailing commas, a missing brace); `None` when nothing like a list or an object comes of it."""
    try:
        return _decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    from json_repair import loads as repair  # a small pure-Python library, imported on need

    try:
        value = repair(text)
    except Exception:  # the library's own failures: the text is not JSON-like at all
        return None
    return value if isinstance(value, dict | list) else None


_TRIPLE = re.compile(r'"""|\'\'\'')


def python_strings(text: str) -> str | None:
    """`text` with its Python triple-quoted strings made JSON strings, when each plainly is one
    value (`"key": \"\"\"…\"\"\"` followed by `,` or `}`); `None` when that is ambiguous (a
    docstring inside, an odd count)."""
    marks = list(_TRIPLE.finditer(text))
    if len(marks) % 2:
        return None
    out, at = [], 0
    for opening, closing in zip(marks[::2], marks[1::2], strict=True):
        before, after = text[at : opening.start()], text[closing.end() :]
        if opening.group() != closing.group() or not before.rstrip().endswith(":"):
            return None
        if not after.lstrip().startswith((",", "}")):
            return None
        content = text[opening.end() : closing.start()].removeprefix("\\\n")
        out += [before, json.dumps(content)]
        at = closing.end()
    return "".join([*out, text[at:]])


def _pairs(value: Any) -> Iterator[tuple[str, Any]]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                yield str(key), child
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


_OPENS: dict[str, tuple[type, ...]] = {
    '"': (str,),
    "'": (str,),
    "{": (dict,),
    "[": (list,),
}


def _empty(opening: str) -> bool:
    """Whether a value written as `opening` (its first three characters) is an empty string."""
    return opening[:2] in ('""', "''") and not _TRIPLE.match(opening)


def repair_loss(raw: str, value: Any) -> str | None:
    """What repairing `raw` into `value` broke: a key the model never wrote, a string whose
    content went missing, a value of another shape; `None` when the repair kept everything."""
    problems: list[str] = []
    for key, item in _pairs(value):
        written = re.search(rf"[\"']{re.escape(key)}[\"']\s*:\s*(\S)", raw)
        if written is None:
            problems.append(f"it gained the key {key[:40]!r}")
            continue
        first = written.group(1)
        kinds = _OPENS.get(first, (int, float, bool, type(None)))
        if not isinstance(item, kinds) or (isinstance(item, bool) and first in "-0123456789"):
            problems.append(f"`{key}` changed shape")
        elif item == "" and not _empty(raw[written.start(1) : written.start(1) + 3]):
            problems.append(f"`{key}` lost its content")
    return "; ".join(dict.fromkeys(problems)) or None


def malformed(raw: str) -> str:
    """What is wrong with arguments that are not JSON, said so the model can resend them."""
    triple = [m.group(1) for m in re.finditer(r"[\"']?(\w+)[\"']?\s*:\s*(?:\"\"\"|''')", raw)]
    if triple or _TRIPLE.search(raw):
        named = ", ".join(f"`{k}`" for k in dict.fromkeys(triple)) or "each string"
        return (
            f"your JSON used Python triple quotes; send {named} as one JSON string "
            '(line breaks as \\n, quotes as \\")'
        )
    value = repaired(raw)
    loss = repair_loss(raw, value) if value is not None else None
    return f"repairing it would be lossy ({loss}); send one JSON object" if loss else ""
