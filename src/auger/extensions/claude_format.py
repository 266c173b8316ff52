"""Claude Code's shapes, as its hook scripts see them: tool and argument names, tool
responses, matchers, and what a hook's output says."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

DEFAULT_TIMEOUT = 60.0
"""Seconds a hook may run (Claude Code's default)."""
MAX_MODEL_CHARS = 10_000
"""The most of a hook's text the model is given, as Claude Code gives it."""

# auger tool → (Claude Code's name, auger argument → Claude Code's argument)
CLAUDE_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "read": ("Read", {"path": "file_path"}),
    "write": ("Write", {"path": "file_path"}),
    "edit": ("Edit", {"path": "file_path"}),
    "bash": ("Bash", {}),
    "grep": ("Grep", {"ignore_case": "-i", "context": "-C", "limit": "head_limit"}),
    "find": ("Glob", {}),
    "ls": ("LS", {}),
}
SESSION_SOURCES = {"new": "startup", "restore": "resume", "reload": "startup"}
SESSION_END_REASONS = {"close": "prompt_input_exit", "reload": "other"}

# Claude Code matches a plain `A|B` matcher exactly and anything else as a regex.
_PLAIN_MATCHER = re.compile(r"[A-Za-z0-9_|]+")


class Hook(msgspec.Struct, frozen=True):
    """One configured command and its timeout in seconds."""

    command: str
    timeout: float = DEFAULT_TIMEOUT


class Result(msgspec.Struct, frozen=True):
    """What a hook that ran said: `blocked` (exit 2's stderr), else its stdout as JSON or text."""

    blocked: str | None = None
    output: dict[str, Any] = msgspec.field(default_factory=dict)
    text: str = ""

    @property
    def specific(self) -> dict[str, Any]:
        """`hookSpecificOutput`, or an empty dict."""
        value = self.output.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    @property
    def stop(self) -> str | None:
        """Why the hook said `continue: false`, or `None` when it did not."""
        if self.output.get("continue") is not False:
            return None
        return str(self.output.get("stopReason") or "a hook stopped the agent")

    @property
    def block(self) -> str | None:
        """The reason of an exit 2 or of `decision: "block"`, or `None`."""
        if self.blocked is not None:
            return clip(self.blocked)
        if self.output.get("decision") == "block":
            return clip(str(self.output.get("reason") or "blocked by a hook"))
        return None

    @property
    def context(self) -> str:
        """`hookSpecificOutput.additionalContext`, or `""`."""
        value = self.specific.get("additionalContext")
        return clip(value) if isinstance(value, str) else ""


def claude_tool(name: str) -> str:
    """The name Claude Code gives auger's tool `name` (other tools keep their own)."""
    return CLAUDE_TOOLS[name][0] if name in CLAUDE_TOOLS else name


def to_claude_input(name: str, args: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """A tool's arguments as Claude Code names them, with paths made absolute as it does."""
    if name not in CLAUDE_TOOLS:
        return dict(args)
    renames = CLAUDE_TOOLS[name][1]
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key == "path" and isinstance(value, str):
            value = str(cwd / Path(value).expanduser())
        elif name == "bash" and key == "timeout" and isinstance(value, int | float):
            value = value * 1000  # Claude Code's Bash takes milliseconds, auger's seconds
        out[renames.get(key, key)] = value
    return out


def to_claude_response(name: str, output: str, claude_input: Mapping[str, Any]) -> Any:
    """A tool's result in the shape Claude Code gives PostToolUse hooks: an object for its
    shell and file-writing tools, the text for every other tool."""
    if name == "bash":
        return {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    if name in ("write", "edit"):
        return {"filePath": claude_input.get("file_path", ""), "success": True}
    return output


def from_claude_input(name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments in Claude Code's names turned back into auger's."""
    if name not in CLAUDE_TOOLS:
        return dict(args)
    back = {claude: ours for ours, claude in CLAUDE_TOOLS[name][1].items()}
    out = {back.get(key, key): value for key, value in args.items()}
    if name == "bash" and isinstance(out.get("timeout"), int | float):
        out["timeout"] = out["timeout"] / 1000
    return out


def matches(matcher: Any, names: tuple[str, ...]) -> bool:
    """Whether a Claude Code matcher selects any of `names`; empty or `*` selects everything.

    Raises `re.error` for a matcher that is not a valid regex.
    """
    if matcher in (None, "", "*"):
        return True
    if not isinstance(matcher, str):
        return False
    if _PLAIN_MATCHER.fullmatch(matcher):
        return any(name in matcher.split("|") for name in names)
    pattern = re.compile(matcher)
    return any(pattern.search(name) for name in names)


def parse_output(stdout: str) -> Result:
    """What a hook that exited 0 said: its stdout as JSON when it is a JSON object."""
    text = stdout.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return Result(text=clip(stdout))
        if isinstance(value, dict):
            return Result(output=value)
    return Result(text=clip(stdout))


def clip(text: str) -> str:
    """`text` cut to what the model may be given of a hook's output."""
    if len(text) <= MAX_MODEL_CHARS:
        return text
    more = len(text) - MAX_MODEL_CHARS
    return f"{text[:MAX_MODEL_CHARS]}… [hook output truncated: {more} more chars]"


def joined(*parts: str) -> str:
    """Hook texts one after another, a blank line between, the empty ones left out."""
    return "\n\n".join(p for p in parts if p)
