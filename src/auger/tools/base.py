"""The Tool protocol: a name, a description, a JSON schema, and an async `run`."""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    Union,
    cast,
    get_args,
    get_origin,
    overload,
)

import msgspec

from auger.llm.messages import ImagePart
from auger.llm.provider import ToolSpec
from auger.llm.records import Record
from auger.llm.text import escape_surrogates

if TYPE_CHECKING:  # each imports this module: known to the type checker only
    from auger.host import Capability
    from auger.tools.files import FileReads
    from auger.tools.jobs import Jobs
    from auger.tools.sandbox import Sandbox

ToolErrorType = Literal[
    # the dispatch's own
    "validation_error",
    "unknown_tool",
    "blocked",
    "cancelled",
    "tool_failed",
    "unavailable",
    # files
    "not_found",
    "is_directory",
    "not_a_directory",
    "not_a_file",
    "binary_file",
    "too_large",
    "permission",
    "permission_denied",
    "io_error",
    "file_changed",
    # edits
    "no_change",
    "ambiguous",
    "overlapping_edits",
    # commands
    "command_failed",
    "timeout",
    "sandbox",
    "sandbox_unavailable",
    # the web, sub-agents
    "network",
    "http_error",
    "unsupported_content",
    "search_failed",
    "subagent_failed",
    "error",
]
"""How a tool call failed (SPEC §3); `error` when the type was not kept (a failed result read
back from a session file written before results kept it)."""
TOOL_ERROR_TYPES: frozenset[str] = frozenset(get_args(ToolErrorType))


def error_type_of(text: str | None) -> ToolErrorType:
    """`text` as a tool error type; `error` for one auger does not know (a foreign file's)."""
    return cast(ToolErrorType, text) if text in TOOL_ERROR_TYPES else "error"


class ToolResponse(msgspec.Struct, frozen=True):
    """What a tool call returned: the text the model is told, and an `error_type` on failure."""

    content: str
    error_type: ToolErrorType | None = None
    images: tuple[ImagePart, ...] = ()

    @property
    def is_error(self) -> bool:
        """Whether the call failed."""
        return self.error_type is not None

    @classmethod
    def error(cls, error_type: ToolErrorType, content: str) -> ToolResponse:
        """A failed call."""
        return cls(content, error_type)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (images are counted, not inlined)."""
        out: dict[str, Any] = {
            "content": self.content,
            "error_type": self.error_type,
            "is_error": self.is_error,
        }
        if self.images:
            out["images"] = len(self.images)
        return out


class ToolError(Exception):
    """Raised inside a tool to fail the call with an `error_type` the model sees."""

    def __init__(self, error_type: ToolErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


class AgentSession(Protocol):
    """What a tool may do in the session of the agent that called it: the part of
    `engine.context.Context` tools use, declared here so no tool imports the engine."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What the host can do."""
        ...

    def append_custom(self, kind: str, data: Any = None) -> None:
        """Save extension state in the session."""
        ...

    async def publish(self, record: Record) -> None:
        """Send a record to the stream and to its handlers."""
        ...

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The user's answer; `None` when the host cannot ask or they declined."""
        ...

    def end_turn(self, text: str) -> None:
        """End the running turn once this round of tool calls is over."""
        ...


class ToolContext(msgspec.Struct, frozen=True):
    """What a running tool may know about where it runs."""

    cwd: Path
    env: Mapping[str, str]
    call_id: str = ""
    home: Path | None = None
    jobs: Jobs | None = None
    supports_images: bool = True
    files: FileReads | None = None
    """What the model has seen of each file (`None`: nothing is tracked)."""
    sandbox: Sandbox | None = None
    """`None`: unconfined."""
    agent: AgentSession | None = None
    """The calling agent's session (sub-agents, todo, plans); `None` outside a turn."""

    def check_write(self, path: Path, shown: str) -> None:
        """Refuse a write outside the sandbox's writable folders (nothing when unconfined)."""
        if self.sandbox is not None:
            self.sandbox.check_write(path, shown)

    def resolve(self, path: str) -> Path:
        """`path` made absolute against the session's cwd (`~` expanded)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.cwd / p

    def is_credentials(self, path: Path) -> bool:
        """Whether `path` is auger's credential file — by name, or a symbolic or hard link to
        it (the same inode) — which no tool reads."""
        if self.home is None:
            return False
        import os

        secret = self.home / "auth.json"
        if os.path.realpath(path) == os.path.realpath(secret):
            return True
        try:
            return os.path.samefile(path, secret)
        except OSError:  # either is missing: not the same file
            return False

    def check_readable(self, path: Path, shown: str) -> None:
        """Refuse to read auger's credential file, in every mode (SPEC §6)."""
        if self.is_credentials(path):
            raise ToolError(
                "permission", f"{shown} is auger's credential file: no tool reads it, in any mode"
            )


Runner = Callable[[dict[str, Any], ToolContext], Awaitable["ToolResponse | str"]]
Checker = Callable[[dict[str, Any]], "str | None"]


class Tool(msgspec.Struct, frozen=True):
    """A tool the model can call. `run(args, ctx)` returns a `ToolResponse` or plain text;
    `check(args)`, when set, says what is wrong with arguments before anything runs."""

    name: str
    description: str
    parameters: dict[str, Any]
    run: Runner = msgspec.field()
    check: Checker | None = None

    @property
    def spec(self) -> ToolSpec:
        """What the model is shown."""
        return ToolSpec(self.name, self.description, self.parameters)

    def refusal(self, args: dict[str, Any]) -> ToolResponse | None:
        """The `validation_error` for arguments `check` finds wrong; `None` when they are fine."""
        problem = self.check(args) if self.check is not None else None
        if not problem:
            return None
        return ToolResponse.error("validation_error", f"{self.name}: {problem}")


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


def _schema_check(schema: dict[str, Any]) -> Checker:
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


class _Signature:
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


@overload
def tool(
    fn: Callable[..., object],
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> Tool: ...
@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> Callable[[Callable[..., object]], Tool]: ...
def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> Tool | Callable[[Callable[..., object]], Tool]:
    """Make a `Tool` from a function (plain or async), its schema from type hints and docstring.

    Usable bare (`@tool`) or with options (`@tool(name="x")`). Arguments are checked against
    the function's own types (or, with `parameters`, that schema's required keys and top-level
    types) before anything runs — the dispatch asks before `before_tool_call`; a failure is a
    `validation_error` naming each field, which the model sees. Bytes that are not UTF-8 in
    what the tool returns (a file name like `b'caf\\xe9'`) reach the model escaped
    (`caf\\xe9`).
    """

    def build(func: Callable[..., Any]) -> Tool:
        derived_description, derived_schema = schema_from_signature(func)
        signature = None if parameters is not None else _Signature(func)
        check = signature.check if signature is not None else _schema_check(parameters or {})
        wants_ctx = "ctx" in inspect.signature(func).parameters
        is_async = inspect.iscoroutinefunction(func)

        async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResponse | str:
            if refused := made.refusal(args):
                return refused
            kwargs = signature.convert(args) if signature is not None else dict(args)
            if wants_ctx:
                kwargs["ctx"] = ctx
            try:
                result = func(**kwargs)
                result = await result if is_async else result
            except ToolError as exc:
                raise ToolError(exc.error_type, escape_surrogates(exc.message)) from None
            if isinstance(result, ToolResponse):
                return msgspec.structs.replace(result, content=escape_surrogates(result.content))
            return escape_surrogates(result) if isinstance(result, str) else result

        schema = parameters or derived_schema
        made = Tool(name or func.__name__, description or derived_description, schema, run, check)
        return made

    return build if fn is None else build(fn)
