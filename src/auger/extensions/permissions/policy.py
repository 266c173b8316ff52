"""Deciding a tool call (SPEC §6): a matching deny rule, else ask, else allow, else the mode.

Tool classes: `read` (reads, searches, `ls`, looking at jobs), `edit` (`write`, `edit`: inside
or outside the project) and `run` (`bash`, MCP and extension tools, `web_fetch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from auger.config.schema import PERMISSION_MODES
from auger.extensions.permissions.rules import (
    Call,
    Rule,
    RuleError,
    escape_glob,
    parse_rule,
    real,
)
from auger.extensions.permissions.shell import ShellSyntaxError, split_commands

Mode = Literal["ask", "accept-edits", "read-only", "auto"]
Outcome = Literal["allow", "ask", "deny"]
ToolClass = Literal["read", "edit", "run"]

READ_TOOLS = frozenset({"read", "grep", "find", "ls", "jobs"})
EDIT_TOOLS = frozenset({"write", "edit"})

# mode → (read, edit inside the project, edit outside, run)
MODES: dict[str, tuple[Outcome, Outcome, Outcome, Outcome]] = {
    "ask": ("allow", "ask", "ask", "ask"),
    "accept-edits": ("allow", "allow", "ask", "ask"),
    "read-only": ("allow", "deny", "deny", "deny"),
    "auto": ("allow", "allow", "allow", "allow"),
}
assert tuple(MODES) == PERMISSION_MODES


class Verdict(msgspec.Struct, frozen=True):
    """What was decided, by a rule or the mode; `rule` is the rule's text when one decided."""

    outcome: Outcome
    by: Literal["rule", "mode"]
    rule: str | None = None


class Rules(msgspec.Struct, frozen=True):
    """The allow, ask and deny rules in force."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def parse(cls, allow: Sequence[str], ask: Sequence[str], deny: Sequence[str]) -> Rules:
        """Rules from their texts; `RuleError` names the first that cannot be read."""
        return cls(*(tuple(parse_rule(t) for t in texts) for texts in (allow, ask, deny)))


def tool_class(tool: str) -> ToolClass:
    """The class the mode table decides `tool` by."""
    if tool in READ_TOOLS:
        return "read"
    if tool in EDIT_TOOLS:
        return "edit"
    return "run"


def by_mode(mode: str, call: Call) -> Outcome:
    """What the mode alone decides for `call`."""
    read, edit_in, edit_out, run = MODES.get(mode, MODES["ask"])
    kind = tool_class(call.tool)
    if kind == "read":
        return read
    if kind == "edit":
        return edit_in if call.inside() else edit_out
    return run


def _parts(call: Call) -> list[Call] | None:
    """A shell call split into one call per simple command (`None`: it cannot be read)."""
    command = call.args.get("command")
    if call.tool != "bash" or not isinstance(command, str):
        return [call]
    try:
        parts = split_commands(command)
    except ShellSyntaxError:
        return None
    return [msgspec.structs.replace(call, args={"command": p}) for p in parts] or [call]


def _first(rules: Sequence[Rule], parts: Sequence[Call]) -> Rule | None:
    return next((r for r in rules for p in parts if r.matches(p)), None)


def decide(rules: Rules, mode: str, call: Call) -> Verdict:
    """Deny rules, then ask, then allow, then the mode. A shell command is denied or asked
    about when any of its simple commands is, and allowed by rules only when every one is."""
    parts = _parts(call)
    whole = parts if parts is not None else [call]
    for outcome, found in (("deny", rules.deny), ("ask", rules.ask)):
        rule = _first(found, whole)
        if rule is None and parts is None:  # unreadable: only a bare rule can select it
            rule = next((r for r in found if r.covers(call.tool) and r.specifier is None), None)
        if rule is not None:
            return Verdict(outcome, "rule", rule.text)  # type: ignore[arg-type]
    if parts is None:
        bare = next((r for r in rules.allow if r.covers(call.tool) and r.specifier is None), None)
        if bare is not None:
            return Verdict("allow", "rule", bare.text)
    else:
        chosen = [_first(rules.allow, [p]) for p in parts]
        if all(chosen):
            texts = dict.fromkeys(r.text for r in chosen if r is not None)
            return Verdict("allow", "rule", ", ".join(texts))
    return Verdict(by_mode(mode, call), "mode")


def suggested_rules(rules: Rules, call: Call) -> list[str]:
    """The narrowest allow rules that would let `call` run: per shell command not yet allowed,
    that exact command; a file, exactly; any other tool, by name."""
    if call.tool == "bash":
        parts = _parts(call)
        if parts is None:
            return ["bash"]
        return list(
            dict.fromkeys(
                f"bash({p.args['command']})" for p in parts if _first(rules.allow, [p]) is None
            )
        )
    path = call.path()
    if tool_class(call.tool) in ("edit", "read") and path is not None:
        if call.inside():
            spec = "./" + escape_glob(path.relative_to(real(call.project)).as_posix())
        else:
            spec = "/" + escape_glob(path.as_posix())
        return [f"{call.tool}({spec})"]
    if call.tool == "web_fetch":
        from urllib.parse import urlsplit

        host = urlsplit(str(call.args.get("url", ""))).hostname
        if host:
            return [f"web_fetch(domain:{host})"]
    return [call.tool]


def loosest_mode(call: Call) -> Mode:
    """The least permissive mode that runs `call` without asking."""
    order: tuple[Mode, ...] = ("ask", "accept-edits", "auto")
    return next((mode for mode in order if by_mode(mode, call) == "allow"), "auto")


def check_rules(texts: Sequence[str]) -> str | None:
    """The reason the first unreadable rule of `texts` is unreadable, else `None`."""
    for text in texts:
        try:
            parse_rule(text)
        except RuleError as exc:
            return str(exc)
    return None
