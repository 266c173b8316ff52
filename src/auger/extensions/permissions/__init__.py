"""The bundled `permissions` extension (SPEC §6): every tool call is allowed, asked about or
denied, by the rules in settings, then the mode; `/permissions` shows them and sets the mode.

Settings: `permissions.mode`, `permissions.allow | ask | deny` (flags `--permission-mode`,
`--yolo`, `--allow`, `--deny` land there). "Always allow" saves the narrowest rule to the user's
local settings for this project, and applies it at once; "allow for this session" allows a
named scope until the session ends; a deny may carry what the model should do instead, or stop
the turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.config.schema import MODE_ALIASES, PERMISSION_MODES
from auger.extensions.permissions import plan
from auger.extensions.permissions.policy import (
    Rules,
    Verdict,
    decide,
    loosest_mode,
    suggested_rules,
)
from auger.extensions.permissions.rules import Call
from auger.extensions.permissions.shell import analyse
from auger.records import DECISIONS, PermissionDecision, PermissionRequest


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def title(call: Call) -> str:
    """One line a person understands: what the call would do."""
    if call.tool == "bash":
        command = str(call.args.get("command", "")).strip()
        first = command.splitlines()[0] if command else ""
        more = " …" if len(first) > 200 or "\n" in command else ""
        return f"Run {first[:200]}{more}"
    path = call.args.get("path")
    if call.tool in ("write", "edit") and isinstance(path, str):
        return f"{call.tool.capitalize()} {path}"
    return f"Use the tool {call.tool}"


def commands_run(command: str) -> list[list[str]] | None:
    """The words of every simple command `command` runs (wrappers stripped, SPEC §6); `None`
    when the line cannot be read statically."""
    analysis = analyse(command)
    return None if analysis.opaque else [list(c.words) for c in analysis.commands]


def _session_rule(argv: list[str]) -> str:
    """A command allowed for the session: exactly, or `tool subcommand:*` when it has one."""
    import shlex

    if len(argv) > 2 and not argv[1].startswith("-") and "/" not in argv[1]:
        return f"bash({shlex.join(argv[:2])}:*)"
    return f"bash({shlex.join(argv)})"


def session_scope(call: Call, suggested: list[str]) -> tuple[list[str], str]:
    """What "allow for this session" allows, as rules and in words."""
    if call.tool in ("write", "edit") and call.inside():
        return ["edit(/**)"], "all edits in this project"
    if call.tool == "bash":
        parsed = commands_run(str(call.args.get("command", "")))
        # A line that cannot be read is never allowed for the session: it could run anything.
        rules = list(dict.fromkeys(_session_rule(argv) for argv in parsed or ()))
        return rules, " and ".join(f"`{r.removeprefix('bash(')[:-1]}`" for r in rules)
    if "__" in call.tool:
        return [call.tool], f"every {call.tool} call"
    return suggested, " and ".join(f"`{r}`" for r in suggested)


def describe(
    call: Call, suggested: list[str], call_id: str, because: str = "", once: bool = False
) -> PermissionRequest:
    """The question about `call`: what it would do (and `because`, why it is asked), and what
    each choice allows; `once`: only this call can be allowed (no rule would ever cover it)."""
    from auger.extensions.permissions.preview import file_change

    fields: dict[str, Any] = {}
    change = file_change(call.tool, call.args, call.project)
    if change is not None:
        path, old, new = change
        fields.update(path=str(path), old_text=old, new_text=new)
    if call.tool == "bash":
        parsed = commands_run(str(call.args.get("command", "")))
        runs = dict.fromkeys(Path(argv[0]).name for argv in parsed or ())
        fields.update(cwd=str(call.project), runs=tuple(runs))
    if "__" in call.tool:
        fields["server"] = call.tool.split("__", 1)[0]
    rules, scope = session_scope(call, suggested) if not once else ([], "")
    if rules:
        fields.update(session_rules=tuple(rules), scope=scope)
    elif once:
        fields["options"] = ("allow_once", "deny")
    else:
        fields["options"] = tuple(d for d in DECISIONS if d != "allow_session")
    return PermissionRequest(
        call_id,
        call.tool,
        dict(call.args),
        title(call) + because,
        rule=", ".join(suggested),
        **fields,
    )


def needs_permission(tool: str, rules: list[str], mode: str) -> str:
    """What the model and the user are told when a call could not be asked about."""
    flags = " ".join("--allow '" + r.replace("'", "'\\''") + "'" for r in rules)
    return f"{tool} needs permission — allow it with {flags} or --permission-mode {mode}"


class Permissions:
    """One Runtime's permission step; the mode `/permissions` set outlives a reload."""

    def __init__(self) -> None:
        self.mode: str | None = None  # set by /permissions, over settings
        self.added: list[str] = []  # "always allow" and "allow for this session" rules
        self._home: Path | None = None
        self._parsed: tuple[tuple[tuple[str, ...], ...], Rules] | None = None

    def __call__(self, g: Any) -> None:
        """Register the `tool_call` handler and `/permissions`."""
        self._home = g.home
        g.on("tool_call", self.on_tool_call)
        g.command("permissions", self.command, "show the permission mode and rules; set the mode")
        plan.register(g, self)

    def current_mode(self, settings: Any) -> str:
        """The mode in force: `/permissions`'s, else settings', else `ask`."""
        section = settings.get("permissions")
        configured = section.get("mode") if isinstance(section, dict) else None
        return self.mode or (configured if configured in PERMISSION_MODES else "ask")

    def texts(self, settings: Any) -> tuple[list[str], list[str], list[str]]:
        """The allow, ask and deny rules in force, as written."""
        section = settings.get("permissions")
        section = section if isinstance(section, dict) else {}
        allow = [*_strings(section.get("allow")), *self.added]
        return allow, _strings(section.get("ask")), _strings(section.get("deny"))

    def rules(self, settings: Any) -> Rules:
        """The rules in force, parsed once per change. Hosts check them when settings load;
        one that slipped through fails the handler, which blocks the call (SPEC §2.1)."""
        key = tuple(tuple(t) for t in self.texts(settings))
        if self._parsed is None or self._parsed[0] != key:
            self._parsed = (key, Rules.parse(*key))
        return self._parsed[1]

    async def on_tool_call(self, event: Any, ctx: Any) -> str | None:
        """Allow (None), or block with the reason the model is told."""
        if event.name not in ctx.tools:
            return None  # the dispatch answers `unknown_tool`
        home = Path(ctx.env.get("HOME") or Path.home())
        call = Call(event.name, dict(event.input), ctx.cwd, home)
        rules = self.rules(ctx.settings)
        mode = self.current_mode(ctx.settings)
        ctx.sandbox.follow(mode)
        verdict = decide(rules, mode, call)
        if verdict.outcome == "allow":
            return None
        suggested = suggested_rules(rules, call)
        because = f" — {verdict.reason}" if verdict.reason else ""
        if verdict.outcome == "deny":
            ctx.emit(PermissionDecision(event.call_id, "deny", verdict.by, verdict.rule))
            if verdict.by == "rule" and verdict.reason:
                return f"{event.name} is denied: {verdict.reason}"
            if verdict.by == "rule":
                return f"{event.name} is denied by the rule {verdict.rule!r} in permissions.deny"
            return self._how_to_allow(event.name, verdict, suggested, call) + because
        request = describe(call, suggested, event.call_id, because, verdict.remedy is not None)
        ctx.emit(request)
        can_ask = "permission" in ctx.capabilities
        answer = await ctx.permission_answer(request)
        decision = answer.decision
        ctx.emit(PermissionDecision(event.call_id, decision, "user" if can_ask else "host"))
        if decision == "deny":
            if not can_ask:
                text = self._how_to_allow(event.name, verdict, suggested, call) + because
                ctx.notify(text, "warning")
                return text
            if answer.stop:
                ctx.cancel()
                return f"the user denied permission for this {event.name} call and stopped the turn"
            if answer.feedback and answer.feedback.strip():
                return (
                    f"the user denied permission for this {event.name} call and says what to "
                    f"do instead: {answer.feedback.strip()}"
                )
            return f"the user denied permission for this {event.name} call"
        if decision == "allow_session":
            self.added += [r for r in request.session_rules or () if r not in self.added]
        if decision == "allow_always":
            self._remember(suggested, ctx)
        return None

    @staticmethod
    def _how_to_allow(tool: str, verdict: Verdict, suggested: list[str], call: Call) -> str:
        """What the model and the user are told when a call could not run: the `--allow` rule
        or mode that would let it, or — where none can — what can."""
        if verdict.remedy is not None:
            return f"{tool} needs permission — {verdict.remedy}"
        return needs_permission(tool, suggested, loosest_mode(call))

    def _remember(self, rules: list[str], ctx: Any) -> None:
        from auger.config.errors import ConfigError
        from auger.config.paths import display
        from auger.config.settings import add_local_rule

        self.added += [r for r in rules if r not in self.added]
        if self._home is None or not rules:
            return
        try:
            for rule in rules:
                path = add_local_rule(self._home, ctx.cwd, "allow", rule)
        except (OSError, ConfigError) as exc:  # allowed for this session all the same
            ctx.notify(f"could not save {', '.join(rules)}: {exc}", "warning")
            return
        ctx.notify(f"saved {', '.join(rules)} to {display(path)}")

    async def command(self, ctx: Any) -> None:
        """`/permissions` shows the mode and rules; `/permissions MODE` sets the mode."""
        arg = ctx.args.strip()
        arg = MODE_ALIASES.get(arg, arg)
        if arg:
            if arg not in PERMISSION_MODES:
                ctx.notify(f"unknown mode {arg!r} — use one of {', '.join(PERMISSION_MODES)}")
                return
            self.mode = arg
            await ctx.say(f"Permission mode: {arg}")
            return
        allow, ask, deny = self.texts(ctx.settings)
        lines = [f"Permission mode: {self.current_mode(ctx.settings)}"]
        for name, texts in (("allow", allow), ("ask", ask), ("deny", deny)):
            lines.append(f"{name}: " + (", ".join(texts) if texts else "(none)"))
        await ctx.say("\n".join(lines))
