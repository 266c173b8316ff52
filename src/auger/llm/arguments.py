"""A tool call's raw JSON arguments as a dict, safely: never a RecursionError, however deep."""

from __future__ import annotations

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
        raise ValueError(f"not valid JSON ({exc})") from None
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
