"""The Tool protocol: a name, a description, a JSON schema, and an async `run`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    cast,
    get_args,
    overload,
)

import msgspec

from auger.llm.messages import ImagePart
from auger.llm.provider import ToolSpec
from auger.llm.records import Record
from auger.llm.text import escape_surrogates
from auger.tools.signature import Checker, Signature, schema_check, schema_from_signature

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
        signature = None if parameters is not None else Signature(func)
        check = signature.check if signature is not None else schema_check(parameters or {})
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
