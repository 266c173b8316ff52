"""Agent definitions: the built-in `general` and `explore`, and Markdown files with front
matter (`name`, `description`, `tools`, `model`; the body is the system prompt) in
`.auger/agents/`, Claude Code's `.claude/agents/` (from the working directory up to the
repository root) and the same two under the user's homes.

A definition is text: it can only narrow the parent's tools. So, like skills (SPEC §7), a
project's definitions apply in an untrusted project too — read safely (regular files only, a
symlink only when it resolves inside the project), and never shadowing a built-in or a user's
definition of the same name until the project is trusted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import msgspec

from auger.commands.frontmatter import FrontMatterError, split
from auger.commands.paths import upward
from auger.config.textfile import TextFileError, read_text
from auger.extensions.permissions.rules import CLAUDE_NAMES

Origin = Literal["built-in", "user", "project"]
MAX_BYTES = 256 * 1024
READ_ONLY_TOOLS = ("read", "grep", "find", "ls", "web_fetch", "web_search")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_MORE_NAMES = {"WebSearch": "web_search", "Task": "task", "TodoWrite": "todo"}


class Definition(msgspec.Struct, frozen=True):
    """One agent: its name, what it is for, its tools (`None`: the parent's), its model
    (`None`: the parent's), its system prompt, and where it came from."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    origin: Origin = "built-in"


BUILTIN = (
    Definition(
        "general",
        "",
        "You are a sub-agent of a coding agent. Do the task you are given with the tools you "
        "have, then reply with a concise, complete answer: it is all the caller sees.",
    ),
    Definition(
        "explore",
        "read-only",
        "You are a read-only research sub-agent. Search and read to answer the question; "
        "change nothing. Reply with the findings (paths and line numbers), concisely.",
        READ_ONLY_TOOLS,
    ),
)


def tool_names(value: Any) -> tuple[str, ...] | None:
    """The `tools` front matter (a list, or a comma-separated string; Claude Code's names
    mapped to auger's) — `None` when absent: the parent's tools."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list):
        raise ValueError("tools must be a list or a comma-separated string")
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError("tools must be names")
        raw = item.strip()
        if raw.startswith("mcp__"):
            raw = raw.removeprefix("mcp__")
        name = CLAUDE_NAMES.get(raw) or _MORE_NAMES.get(raw) or raw
        if name and name not in names:
            names.append(name)
    return tuple(names)


def _read_text(path: Path, root: Path) -> str:
    """A definition file's text, read by the one safe reader (`config.textfile`): a regular
    file, a symlink only when it resolves in `root`."""
    try:
        return read_text(path, [root], MAX_BYTES)
    except TextFileError as exc:
        raise ValueError(str(exc)) from None


def load(path: Path, root: Path, origin: Origin) -> Definition:
    """The definition in `path`; `ValueError` says what is wrong with it."""
    meta, body = split(_read_text(path, root))
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError("name must be letters, digits, '-' and '_' (64 at most)")
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise ValueError("description must be text")
    model = meta.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError("model must be text")
    if not body.strip():
        raise ValueError("the body (the system prompt) is empty")
    model = None if model in (None, "inherit") else model
    tools = tool_names(meta.get("tools"))
    return Definition(name, " ".join(description.split()), body.strip(), tools, model, origin)


def folders(cwd: Path, home: Path, user_home: Path) -> list[tuple[Path, Path, Origin]]:
    """(folder, the root its symlinks must stay in, origin), closest first."""
    project = upward(cwd)
    root = project[-1]
    return [
        *((d / sub / "agents", root, "project") for d in project for sub in (".auger", ".claude")),
        (home / "agents", home, "user"),
        (user_home / ".claude" / "agents", user_home / ".claude", "user"),
    ]


def discover(
    cwd: Path, home: Path, user_home: Path, trusted: bool
) -> tuple[dict[str, Definition], list[str]]:
    """Every definition by name, and a notice for each file skipped. The closest of an origin
    wins; a project's wins over the user's and the built-ins only once the project is trusted."""
    by_origin: dict[Origin, dict[str, Definition]] = {"project": {}, "user": {}}
    problems: list[str] = []
    for folder, root, origin in folders(cwd, home, user_home):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                definition = load(path, root, origin)
            except (ValueError, FrontMatterError, OSError, UnicodeDecodeError) as exc:
                problems.append(f"agent definition {path} skipped: {exc}")
                continue
            by_origin[origin].setdefault(definition.name, definition)
    out = {d.name: d for d in BUILTIN} | by_origin["user"]
    for name, definition in by_origin["project"].items():
        if name in out and not trusted:
            problems.append(
                f"the project's agent {name!r} is not used: it would replace the "
                f"{out[name].origin} one, and this project is not trusted (auger trust)"
            )
            continue
        out[name] = definition
    return out, problems
