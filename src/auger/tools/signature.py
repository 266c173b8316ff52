"""A tool's JSON schema and its argument check, both from one source: the function's own
signature (types and docstring), so what the model is told is what is enforced."""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

import msgspec

Checker = Callable[[dict[str, Any]], "str | None"]
"""What is wrong with a call's arguments, or `None`."""


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_for(annotation: Any) -> dict[str, Any]:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _schema_for(options[0])
        return {"anyOf": [_schema_for(a) for a in options]}
    if origin is Literal:
        values = list(get_args(annotation))
        return {"type": _JSON_TYPES.get(type(values[0]), "string"), "enum": values}
    if origin in (list, tuple, typing.Sequence) or annotation in (list, tuple):
        args = get_args(annotation)
        return {"type": "array", "items": _schema_for(args[0])} if args else {"type": "array"}
    if origin in (dict, typing.Mapping) or annotation is dict:
        return {"type": "object"}
    if typing.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation)
        required = sorted(getattr(annotation, "__required_keys__", hints))
        return {
            "type": "object",
            "properties": {k: _schema_for(v) for k, v in hints.items()},
            "required": required,
        }
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    return {}


_ARG_LINE = re.compile(r"^(\s*)(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def _doc_parts(doc: str) -> tuple[str, dict[str, str]]:
    """The description and the per-argument texts of a Google-style docstring."""
    summary: list[str] = []
    params: dict[str, str] = {}
    arg_indent: int | None = None
    in_args = False
    last = ""
    for line in inspect.cleandoc(doc).splitlines():
        if line.strip() in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if not in_args:
            summary.append(line)
            continue
        if not line.strip():
            in_args = False
            continue
        match = _ARG_LINE.match(line)
        indent = len(line) - len(line.lstrip())
        if match and (arg_indent is None or indent == arg_indent):
            arg_indent = indent
            last = match.group(2)
            params[last] = match.group(3).strip()
        elif last:
            params[last] += " " + line.strip()
    # a docstring's hard wraps are not the model's business: lines join, paragraphs stay
    paragraphs = "\n".join(summary).strip().split("\n\n")
    return "\n\n".join(" ".join(p.split("\n")) for p in paragraphs), params


def schema_from_signature(fn: Callable[..., Any]) -> tuple[str, dict[str, Any]]:
    """The description and JSON schema derived from `fn`'s docstring and type hints.

    A parameter named `ctx` receives the `ToolContext` and is not part of the schema.
    """
    description, arg_docs = _doc_parts(fn.__doc__ or "")
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in inspect.signature(fn).parameters.items():
        if name == "ctx" or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        schema = _schema_for(hints.get(name, Any))
        if name in arg_docs:
            schema["description"] = arg_docs[name]
        properties[name] = schema
        if param.default is inspect.Parameter.empty:
            required.append(name)
    return description, {"type": "object", "properties": properties, "required": required}


def _plural(word: str, names: list[str]) -> str:
    return f"{word}{'s' if len(names) > 1 else ''} {', '.join(names)}"


def schema_check(schema: dict[str, Any]) -> Checker:
    """The check of a tool given its own JSON schema: required keys, top-level JSON types."""

    def check(args: dict[str, Any]) -> str | None:
        required = schema.get("required", [])
        if missing := [k for k in required if k not in args]:
            return "missing required " + _plural("argument", missing)
        properties = schema.get("properties", {})
        for key, value in args.items():
            expected = properties.get(key, {}).get("type")
            ok = {
                "string": isinstance(value, str),
                "integer": isinstance(value, int) and not isinstance(value, bool),
                "number": isinstance(value, int | float) and not isinstance(value, bool),
                "boolean": isinstance(value, bool),
                "array": isinstance(value, list),
                "object": isinstance(value, dict),
            }.get(expected, True)
            if not ok and not (value is None and key not in required):
                return f"argument {key!r} must be of type {expected}, got {type(value).__name__}"
        return None

    return check


def _admits_none(annotation: Any) -> bool:
    return annotation is Any or (
        get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)
    )


def _expected(annotation: Any) -> str:
    """What a value of `annotation` is, said for the model."""
    options = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, types.UnionType) and len(options) == 1:
        annotation = options[0]
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(json.dumps(v) for v in get_args(annotation))
    return str(_schema_for(annotation).get("type") or annotation)


class Signature:
    """Arguments checked against a function's own types (the source of its schema too):
    every required one present, no unknown one, each value of its type (`msgspec.convert`,
    strictly: `Literal` values, nested lists and dicts, an int is no float's stand-in)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        hints = typing.get_type_hints(fn)
        self.types: dict[str, Any] = {}
        self.required: list[str] = []
        for name, param in inspect.signature(fn).parameters.items():
            if name == "ctx" or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                continue
            self.types[name] = hints.get(name, Any)
            if param.default is inspect.Parameter.empty:
                self.required.append(name)

    def _given(self, args: dict[str, Any]) -> dict[str, Any]:
        # a null for an optional argument that cannot be null means "not given": the default
        return {
            k: v
            for k, v in args.items()
            if v is not None or k in self.required or _admits_none(self.types.get(k, Any))
        }

    def check(self, args: dict[str, Any]) -> str | None:
        """What is wrong with `args`, naming each field; `None` when nothing is."""
        if missing := [k for k in self.required if k not in args]:
            return "missing required " + _plural("argument", missing)
        if unknown := [k for k in args if k not in self.types]:
            return (
                f"unknown {_plural('argument', [repr(k[:60]) for k in unknown])} "
                f"(it takes {', '.join(self.types) or 'none'})"
            )
        problems = []
        for key, value in self._given(args).items():
            try:
                msgspec.convert(value, type=self.types[key])
            except msgspec.ValidationError as exc:
                where = str(exc).replace("`$", f"`{key}")
                problems.append(f"argument {key!r} must be {_expected(self.types[key])} ({where})")
        return "; ".join(problems) or None

    def convert(self, args: dict[str, Any]) -> dict[str, Any]:
        """`args` (already checked) as the function's own types."""
        return {k: msgspec.convert(v, type=self.types[k]) for k, v in self._given(args).items()}
