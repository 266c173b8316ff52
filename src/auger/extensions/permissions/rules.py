"""Permission rules in Claude Code's syntax (SPEC §6), parsed and matched against a tool call.

`Tool` or `Tool(specifier)`, with auger's tool names or Claude Code's. Specifiers:

- shell: `npm test:*` (those words, then anything), `git status` (exactly those words), `*`
  anywhere as a wildcard (a lone trailing ` *` may match nothing) — matched per simple command;
- files (`read`, `edit`, `write`; `read` rules also cover `grep`, `find`, `ls`, and `edit` rules
  every tool that changes files): a gitignore-style glob, `//abs/path`, `~/in/home`,
  `/from/project/root`, or relative to the project (`./x`, `src/**`);
- `web_fetch(domain:example.com)`;
- `mcp__S__T` is the MCP tool `S__T`; `mcp__S` and `mcp__S__*` all of server S's tools.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from auger.extensions.permissions.shell import ShellSyntaxError, words
from auger.tools.paths import Glob

# Outside the project, what the read tools may look at without asking: auger's own temp
# folders (long command output, background jobs, the sandbox's temp) and the user's skills.
_TEMP_PREFIXES = ("auger-jobs-", "auger-sandbox-")
_SKILLS = (".agents/skills", ".claude/skills")

CLAUDE_NAMES = {
    "Bash": "bash",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Write": "write",
    "Read": "read",
    "Grep": "grep",
    "Glob": "find",
    "LS": "ls",
    "WebFetch": "web_fetch",
}
FILE_TOOLS = {
    "read": ("read", "grep", "find", "ls"),
    "edit": ("edit", "write"),
    "write": ("write",),
}
_NAME = re.compile(r"[A-Za-z0-9_.-]+(\*)?")


class RuleError(ValueError):
    """A rule that cannot be read."""


class Call(msgspec.Struct, frozen=True):
    """A tool call as rules see it: the tool, its arguments, the project and the user's home."""

    tool: str
    args: Mapping[str, Any]
    project: Path
    home: Path

    def path(self) -> Path | None:
        """The file or folder the call names, absolute (`None` when it names none)."""
        raw = self.args.get("path")
        if raw is None and self.tool in ("grep", "find", "ls"):
            raw = "."
        if not isinstance(raw, str):
            return None
        p = Path(raw).expanduser() if raw.startswith("~") else Path(raw)
        return real(p if p.is_absolute() else self.project / p)

    def inside(self) -> bool:
        """Whether the file the call names is in the project."""
        path, project = self.path(), real(self.project)
        return path is not None and (path == project or project in path.parents)

    def readable(self) -> bool:
        """Whether a read tool may look at what the call names without asking: the project,
        auger's temp folders, the user's skill folders."""
        path = self.path()
        if path is None or self.inside():
            return True
        import tempfile

        temp = real(Path(tempfile.gettempdir()))
        if temp in path.parents:
            first = path.relative_to(temp).parts[0]
            if first.startswith(_TEMP_PREFIXES):
                return True
        homes = [real(self.home / rel) for rel in _SKILLS]
        return any(path == h or h in path.parents for h in homes)


def real(path: Path) -> Path:
    """`path` absolute, with symlinks resolved (where a write would really land)."""
    return Path(os.path.realpath(path))


class Rule(msgspec.Struct, frozen=True):
    """One parsed rule: `tool` is auger's name (`S__` ending in `*` for a whole MCP server)."""

    text: str
    tool: str
    specifier: str | None = None

    def covers(self, tool: str) -> bool:
        """Whether the rule is about `tool` (ignoring its specifier)."""
        if self.tool.endswith("*"):
            return tool.startswith(self.tool[:-1])
        if self.specifier is not None and self.tool in FILE_TOOLS:
            return tool in FILE_TOOLS[self.tool]
        return tool == self.tool

    def matches(self, call: Call) -> bool:
        """Whether the rule selects `call` (for `bash`, a call of one simple command)."""
        if not self.covers(call.tool):
            return False
        spec = self.specifier
        if spec is None or spec == "*":
            return True
        if call.tool == "bash":
            command = call.args.get("command")
            return isinstance(command, str) and command_matches(spec, command)
        if self.tool in FILE_TOOLS:
            path = call.path()
            return path is not None and path_matches(spec, path, call.project, call.home)
        if self.tool == "web_fetch" and spec.startswith("domain:"):
            host = urlsplit(str(call.args.get("url", ""))).hostname or ""
            domain = spec.removeprefix("domain:").lower()
            return host == domain or host.endswith("." + domain)
        return False


def parse_rule(text: str) -> Rule:
    """The rule `text` names; `RuleError` when it is not a rule."""
    raw = text.strip()
    name, paren, rest = raw.partition("(")
    specifier = None
    if paren:
        if not rest.endswith(")") or not rest[:-1].strip():
            raise RuleError(f"rule {text!r} is not Tool or Tool(specifier)")
        specifier = rest[:-1].strip()
    if not _NAME.fullmatch(name):
        raise RuleError(f"rule {text!r} does not start with a tool name")
    return Rule(raw, _tool_name(name), specifier)


def _tool_name(name: str) -> str:
    if name.startswith("mcp__"):
        inner = name.removeprefix("mcp__")
        server, sep, tool = inner.partition("__")
        if not sep or tool == "*":
            return f"{server}__*"
        return inner
    return CLAUDE_NAMES.get(name, name)


def command_matches(spec: str, command: str) -> bool:
    """Whether one simple command matches a shell specifier."""
    try:
        have = words(command)
        if spec.endswith(":*"):
            want = words(spec[:-2])
            return have[: len(want)] == want
        if "*" not in spec:
            return have == words(spec)
    except ShellSyntaxError:
        return False
    line = " ".join(have)
    parts = [re.escape(p) for p in spec.split("*")]
    pattern = ".*".join(parts)
    if spec.endswith(" *") and spec.count("*") == 1:
        pattern = re.escape(spec[:-2]) + "(?: .*)?"
    return re.fullmatch(pattern, line, re.DOTALL) is not None


def path_matches(spec: str, path: Path, project: Path, home: Path) -> bool:
    """Whether the absolute `path` matches a file specifier (see the module docstring)."""
    if spec.startswith("//"):
        base, pattern = Path("/"), spec[1:]
    elif spec.startswith("~/"):
        base, pattern = home, "/" + spec[2:]
    elif spec.startswith("./"):
        base, pattern = project, "/" + spec[2:]
    else:
        base, pattern = project, spec
    try:
        rel = path.relative_to(real(base))
    except ValueError:
        return False
    try:
        glob = Glob.parse(pattern)
    except (ValueError, re.error):
        return False
    if glob is None:
        return False
    text = rel.as_posix()
    if text == ".":
        text = ""
    is_dir = path.is_dir()
    if text and glob.matches(text, is_dir):
        return True
    # a folder counts as its contents too: `read(src/**)` covers a grep over `src`
    inner = f"{text}/" if text else ""
    return is_dir and not glob.basename and glob.regex.fullmatch(inner) is not None


def escape_glob(text: str) -> str:
    """`text` with the characters a glob treats specially escaped."""
    return re.sub(r"([\\*?\[\]{}!])", r"\\\1", text)
