"""Deciding a tool call (SPEC §6): a matching deny rule, else ask, else allow, else the mode.

Tool classes: `read` (reads, searches, `ls`, looking at jobs), `edit` (`write`, `edit`: inside
or outside the project) and `run` (`bash`, MCP and extension tools, `web_fetch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from auger.config.schema import PERMISSION_MODES
from auger.extensions.permissions.readonly import protected, read_only
from auger.extensions.permissions.rules import (
    Call,
    Rule,
    RuleError,
    escape_glob,
    parse_rule,
    real,
)
from auger.extensions.permissions.shell import Analysis, Command, analyse

Mode = Literal["ask", "accept-edits", "read-only", "auto"]
Outcome = Literal["allow", "ask", "deny"]
ToolClass = Literal["read", "edit", "run"]

# `task`, `todo` and `propose_plan` change nothing themselves (a child's own calls each pass
# this step): every mode runs them, like reads; rules still decide them.
READ_TOOLS = frozenset({"read", "grep", "find", "ls", "jobs", "task", "todo", "propose_plan"})
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
    reason: str | None = None  # why, when it is not just the rule or the mode table
    remedy: str | None = None  # how to allow it, when no `--allow` rule can


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


def _analysis(call: Call) -> Analysis | None:
    command = call.args.get("command")
    if call.tool != "bash" or not isinstance(command, str):
        return None
    return analyse(command)


def _as_calls(call: Call, commands: Sequence[Command]) -> list[Call]:
    return [msgspec.structs.replace(call, args={"command": c.text}) for c in commands]


def _first(rules: Sequence[Rule], parts: Sequence[Call]) -> Rule | None:
    return next((r for r in rules for p in parts if r.matches(p)), None)


def _bare(rules: Sequence[Rule], tool: str) -> Rule | None:
    return next((r for r in rules if r.covers(tool) and r.specifier is None), None)


def decide(rules: Rules, mode: str, call: Call) -> Verdict:
    """Deny rules, then ask, then allow, then the mode. A shell command is denied or asked
    about when any command it runs (or any wrapper around one) is, and allowed by rules only
    when every command it runs is; one that cannot be read is never allowed by a specific rule
    (SPEC §6)."""
    analysis = _analysis(call)
    if analysis is None:
        return _decide_call(rules, mode, call)
    ran = _as_calls(call, analysis.commands)
    seen = ran + _as_calls(call, analysis.wrappers)
    for outcome, found in (("deny", rules.deny), ("ask", rules.ask)):
        rule = _first(found, seen) or (_bare(found, call.tool) if analysis.opaque else None)
        if rule is not None:
            return Verdict(outcome, "rule", rule.text)  # type: ignore[arg-type]
    if analysis.opaque:
        why = f"the command could not be read ({analysis.opaque[0]})"
        if (bare := _bare(rules.allow, call.tool)) is not None:
            return Verdict("allow", "rule", bare.text)
        if mode == "auto":
            named = next((r for r in rules.deny if r.covers(call.tool)), None)
            if named is None:
                return Verdict("allow", "mode")
            why += f" and the deny rule {named.text!r} names {call.tool}"
            return Verdict("deny", "rule", named.text, why)
        return Verdict("deny" if mode == "read-only" else "ask", "mode", reason=why)
    if analysis.writes and mode == "read-only":
        why = f"it writes to {analysis.writes[0]} and the mode is read-only"
        remedy = "allow it with --permission-mode ask, accept-edits or auto (no rule can here)"
        return Verdict("deny", "mode", reason=why, remedy=remedy)
    chosen = [_first(rules.allow, [p]) for p in ran]
    if ran and all(chosen):
        if analysis.writes and mode == "ask":
            return Verdict("ask", "mode", reason=f"it writes to {analysis.writes[0]}")
        texts = dict.fromkeys(r.text for r in chosen if r is not None)
        return Verdict("allow", "rule", ", ".join(texts))
    if mode == "read-only" and not analysis.writes and all(map(read_only, analysis.commands)):
        return Verdict("allow", "mode")
    return Verdict(by_mode(mode, call), "mode")


def _decide_call(rules: Rules, mode: str, call: Call) -> Verdict:
    for outcome, found in (("deny", rules.deny), ("ask", rules.ask)):
        rule = _first(found, [call])
        if rule is not None:
            return Verdict(outcome, "rule", rule.text)  # type: ignore[arg-type]
    kind = tool_class(call.tool)
    if kind == "edit" and mode != "read-only" and (why := protected(call)) is not None:
        remedy = (
            "only a person can allow it (auger in a terminal, or an editor), or edit it yourself"
        )
        return Verdict("ask", "mode", reason=why, remedy=remedy)  # in every mode (SPEC §6)
    rule = _first(rules.allow, [call])
    if rule is not None:
        return Verdict("allow", "rule", rule.text)
    if kind == "read" and mode != "auto" and not call.readable():
        return Verdict("ask", "mode", reason="it reads outside the project")
    return Verdict(by_mode(mode, call), "mode")


def suggested_rules(rules: Rules, call: Call) -> list[str]:
    """The narrowest allow rules that would let `call` run: per shell command not yet allowed,
    that exact command; a file, exactly; any other tool, by name."""
    if call.tool == "bash":
        analysis = _analysis(call)
        if analysis is None or analysis.opaque:
            return ["bash"]
        parts = _as_calls(call, analysis.commands)
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
