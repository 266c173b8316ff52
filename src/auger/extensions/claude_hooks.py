"""Claude Code–compatible command hooks, built on `g.on` like any extension.

The top-level `"hooks"` settings key takes Claude Code's shape:

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                               "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}

Each hook is a shell command run in the session's directory with the event's JSON on stdin.
Exit 0: stdout is read as JSON when it is JSON. Exit 2: the action is blocked and stderr is the
reason. Any other exit, or a hook that outlives its timeout (default 60 s), is reported and
does not block. Built-in tools are shown to hooks under Claude Code's names and argument names,
so hook scripts written for Claude Code work unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
from collections.abc import Mapping
from typing import Any

from auger.engine.context import Context
from auger.events import (
    AgentEnd,
    BeforeAgentStart,
    BeforeRequest,
    SessionBeforeCompact,
    ToolCallEvent,
    ToolEnd,
)
from auger.extensions.claude_format import (
    DEFAULT_TIMEOUT,
    SESSION_END_REASONS,
    SESSION_SOURCES,
    Hook,
    Result,
    claude_tool,
    from_claude_input,
    joined,
    matches,
    parse_output,
    to_claude_input,
    to_claude_response,
)
from auger.records import (
    Decision,
    PermissionDecision,
    PermissionRequest,
    SessionEnd,
    SessionStart,
)
from auger.tools.jobs import signal_group, stop_group

ASK_ONCE: tuple[Decision, ...] = ("allow_once", "deny")
"""What a hook's `ask` offers: it asks about this call only."""
MAX_OUTPUT_BYTES = 1024 * 1024
"""What is kept of a hook's stdout (and of its stderr); the rest is read and dropped."""


class Hooks:
    """Runs the hooks of one Runtime; its methods are the `g.on` handlers."""

    def __init__(self, project: Mapping[str, list[Any]] | None = None) -> None:
        self._project = project or {}  # a trusted project's .claude/settings*.json hooks
        self._unsupported: set[str] = set()
        self._tool_context: dict[str, str] = {}
        self._session_context: list[str] = []

    # -- configuration ----------------------------------------------------------------------

    def configured(self, ctx: Context, event: str, *names: str) -> list[Hook]:
        """The command hooks of `event` whose matcher selects one of `names` (all, if none)."""
        settings = ctx.settings.get("hooks")
        groups = settings.get(event) if isinstance(settings, dict) else None
        groups = [*(groups if isinstance(groups, list) else ()), *self._project.get(event, ())]
        if not groups:
            return []
        found: list[Hook] = []
        for group in groups:
            if not isinstance(group, dict):
                continue
            try:
                if names and not matches(group.get("matcher"), names):
                    continue
            except re.error as exc:
                ctx.notify(
                    f"{event} hook matcher {group['matcher']!r} is invalid: {exc}", "warning"
                )
                continue
            for entry in group.get("hooks") or ():
                hook = self._hook(ctx, event, entry)
                if hook is not None:
                    found.append(hook)
        return found

    def _hook(self, ctx: Context, event: str, entry: Any) -> Hook | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
            return None
        kind = entry.get("type", "command")
        if kind != "command":
            if kind not in self._unsupported:
                self._unsupported.add(kind)
                ctx.notify(f"{event} hooks of type {kind!r} are not supported; skipped", "warning")
            return None
        timeout = entry.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
            return Hook(entry["command"], float(timeout))
        return Hook(entry["command"], DEFAULT_TIMEOUT)

    # -- running one hook -------------------------------------------------------------------

    async def run(
        self, ctx: Context, event: str, hook: Hook, fields: dict[str, Any]
    ) -> Result | None:
        """Run `hook` with the event's JSON on stdin; `None` when it failed (and was reported)."""
        cwd = str(ctx.cwd)
        payload = {
            "session_id": ctx.session_id,
            "transcript_path": str(getattr(ctx, "transcript_path", None) or ""),
            "cwd": cwd,
            "hook_event_name": event,
            **fields,
        }
        agent = getattr(ctx, "agent", None)
        if agent is not None:  # a sub-agent's event (SPEC §8)
            payload |= {"agent_id": agent.id, "agent_type": agent.name}
        spawn = asyncio.ensure_future(
            asyncio.create_subprocess_shell(
                hook.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env={**ctx.env, "CLAUDE_PROJECT_DIR": cwd},
                start_new_session=True,
            )
        )
        try:
            process = await asyncio.shield(spawn)
        except OSError as exc:
            ctx.notify(f"{event} hook {hook.command} could not start: {exc}", "warning")
            return None
        except asyncio.CancelledError:
            # cancelled while the hook was being started: let it start, then stop its group
            with contextlib.suppress(OSError):
                started = await spawn
                signal_group(started.pid, signal.SIGKILL)
                await started.wait()
            raise
        try:
            async with asyncio.timeout(hook.timeout):
                out, err = await _exchange(process, json.dumps(payload).encode())
        except TimeoutError:
            await stop_group(process)
            ctx.notify(f"{event} hook {hook.command} timed out after {hook.timeout:g}s", "warning")
            return None
        except asyncio.CancelledError:
            signal_group(process.pid, signal.SIGKILL)
            await process.wait()
            raise
        stdout = out.decode(errors="replace")
        stderr = err.decode(errors="replace").strip()
        code = process.returncode
        if code == 2:
            return Result(blocked=stderr or f"blocked by {event} hook {hook.command}")
        if code != 0:
            detail = f": {stderr}" if stderr else ""
            ctx.notify(
                f"{event} hook {hook.command} failed with exit code {code}{detail}", "warning"
            )
            return None
        result = parse_output(stdout)
        message = result.output.get("systemMessage")
        if isinstance(message, str) and message:
            ctx.notify(message, "warning")
        return result

    # -- the handlers -----------------------------------------------------------------------

    async def tool_call(self, event: ToolCallEvent, ctx: Context) -> str | dict[str, Any] | None:
        """PreToolUse: block (a string), rewrite the input (a dict), ask, or allow (`None`)."""
        name = claude_tool(event.name)
        hooks = self.configured(ctx, "PreToolUse", name, event.name)
        if not hooks:
            return None
        tool_input = to_claude_input(event.name, event.input, ctx.cwd)
        updated = False
        asked: str | None = None
        contexts: list[str] = []
        for hook in hooks:
            fields = {"tool_name": name, "tool_input": tool_input, "tool_use_id": event.call_id}
            result = await self.run(ctx, "PreToolUse", hook, fields)
            if result is None:
                continue
            if result.stop is not None:
                ctx.notify(result.stop, "warning")
                ctx.cancel()
                return result.stop
            specific = result.specific
            decision = specific.get("permissionDecision")
            reason = str(specific.get("permissionDecisionReason") or "")
            if decision == "deny":
                return reason or f"a PreToolUse hook denied {name}"
            # A top-level `decision: "block"` is Claude Code's older spelling of deny.
            if result.block is not None:
                return result.block
            if decision == "ask" and asked is None:
                asked = reason or f"a PreToolUse hook asks before {name} runs"
            if isinstance(specific.get("updatedInput"), dict):
                tool_input, updated = dict(specific["updatedInput"]), True
            contexts.append(result.context)
        if asked is not None:
            if "permission" not in ctx.capabilities:
                return f"{asked} — not allowed: no one could be asked"
            request = PermissionRequest(
                event.call_id, event.name, event.input, f"Allow {name}? {asked}", ASK_ONCE
            )
            ctx.emit(request)
            decision = await ctx.request_permission(request)
            ctx.emit(PermissionDecision(event.call_id, decision, "user"))
            if decision == "deny":
                return f"{asked} — not allowed: the user declined"
        if any(contexts):
            self._tool_context[event.call_id] = joined(*contexts)
        return from_claude_input(event.name, tool_input) if updated else None

    async def tool_end(self, event: ToolEnd, ctx: Context) -> str | None:
        """PostToolUse (successful calls, as in Claude Code): replace or add to the result."""
        pending = self._tool_context.pop(event.call_id, "")
        name = claude_tool(event.name)
        hooks = self.configured(ctx, "PostToolUse", name, event.name) if event.ok else []
        if not hooks and not pending:
            return None
        output = event.result
        contexts = [pending]
        tool_input = to_claude_input(event.name, event.input, ctx.cwd)
        for hook in hooks:
            fields = {
                "tool_name": name,
                "tool_input": tool_input,
                "tool_response": to_claude_response(event.name, output, tool_input),
                "tool_use_id": event.call_id,
            }
            result = await self.run(ctx, "PostToolUse", hook, fields)
            if result is None:
                continue
            replaced = result.specific.get("updatedToolOutput")
            if replaced is None:
                replaced = result.specific.get("updatedMCPToolOutput")
            if replaced is not None:
                output = replaced if isinstance(replaced, str) else json.dumps(replaced)
            contexts.append(result.context)
            if result.stop is not None:
                ctx.notify(result.stop, "warning")
                ctx.cancel()
                break
            if result.block is not None:
                # Claude Code tells the model why: the output stands, the reason follows it.
                contexts.append(result.block)
                break
        final = joined(output, *contexts)
        return final if final != event.result else None

    async def before_agent_start(self, event: BeforeAgentStart, ctx: Context) -> str | bool | None:
        """UserPromptSubmit: cancel the turn (`False`) or add context to the prompt."""
        contexts: list[str] = []
        for hook in self.configured(ctx, "UserPromptSubmit"):
            result = await self.run(ctx, "UserPromptSubmit", hook, {"prompt": event.prompt})
            if result is None:
                continue
            reason = result.stop or result.block
            if reason is not None:
                ctx.notify(f"UserPromptSubmit hook blocked the prompt: {reason}", "warning")
                return False
            contexts.append(result.context or result.text.strip())
        return joined(event.prompt, *contexts) if any(contexts) else None

    async def agent_end(self, event: AgentEnd, ctx: Context) -> None:
        """Stop (SubagentStop for a sub-agent): observe only; a hook that asks to keep going
        is reported."""
        fields = {"stop_hook_active": False, "last_assistant_message": event.text}
        name = "Stop" if getattr(ctx, "agent", None) is None else "SubagentStop"
        for hook in self.configured(ctx, name):
            result = await self.run(ctx, name, hook, fields)
            if result is not None and result.block is not None:
                ctx.notify(
                    f"{name} hook {hook.command} asked to keep going, which auger does not do: "
                    f"{result.block}",
                    "warning",
                )

    async def session_start(self, record: SessionStart, ctx: Context) -> None:
        """SessionStart: its context reaches the model with the turn's message."""
        source = SESSION_SOURCES.get(record.reason, "startup")
        for hook in self.configured(ctx, "SessionStart", source):
            result = await self.run(ctx, "SessionStart", hook, {"source": source})
            if result is None:
                continue
            if result.blocked is not None:
                ctx.notify(f"SessionStart hook {hook.command}: {result.blocked}", "warning")
                continue
            context = result.context or result.text.strip()
            if context:
                self._session_context.append(context)

    async def session_end(self, record: SessionEnd, ctx: Context) -> None:
        """SessionEnd: observe only."""
        reason = SESSION_END_REASONS.get(record.reason, "other")
        for hook in self.configured(ctx, "SessionEnd", reason):
            result = await self.run(ctx, "SessionEnd", hook, {"reason": reason})
            if result is not None and result.blocked is not None:
                ctx.notify(f"SessionEnd hook {hook.command}: {result.blocked}", "warning")

    def before_request(self, event: BeforeRequest) -> str | None:
        """Hand SessionStart's context to the first turn after it."""
        if not self._session_context:
            return None
        context, self._session_context = joined(*self._session_context), []
        return context

    async def session_before_compact(
        self, event: SessionBeforeCompact, ctx: Context
    ) -> bool | None:
        """PreCompact: `False` cancels the compaction."""
        trigger = "auto" if event.automatic else "manual"
        fields = {"trigger": trigger, "custom_instructions": event.instruction or ""}
        for hook in self.configured(ctx, "PreCompact", trigger):
            result = await self.run(ctx, "PreCompact", hook, fields)
            if result is None:
                continue
            reason = result.stop or result.block
            if reason is not None:
                ctx.notify(f"PreCompact hook blocked compaction: {reason}", "warning")
                return False
        return None


async def _capped(stream: asyncio.StreamReader | None, cap: int) -> bytes:
    """The first `cap` bytes of a stream, read to its end so the writer never blocks; what
    was cut is noted after them."""
    kept: list[bytes] = []
    size = 0
    while stream is not None and (chunk := await stream.read(64 * 1024)):
        if size < cap:
            kept.append(chunk[: cap - size])
        size += len(chunk)
    data = b"".join(kept)
    if size > cap:
        data += f"\n[hook output truncated: {size - cap} more bytes]".encode()
    return data


async def _exchange(process: asyncio.subprocess.Process, payload: bytes) -> tuple[bytes, bytes]:
    """Send `payload` on stdin and read stdout and stderr, each kept to `MAX_OUTPUT_BYTES`."""

    async def send() -> None:
        assert process.stdin is not None
        try:
            process.stdin.write(payload)
            await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # a hook may exit without reading its input

    _, out, err = await asyncio.gather(
        send(),
        _capped(process.stdout, MAX_OUTPUT_BYTES),
        _capped(process.stderr, MAX_OUTPUT_BYTES),
    )
    await process.wait()
    return out, err


def extension(g: Any) -> None:
    """Registers the handlers that run the hooks configured under settings `"hooks"` (and
    in a trusted project's `.claude/settings.json`)."""
    from auger.extensions import claude_project

    project: dict[str, list[Any]] = {}
    if claude_project.trusted(g.home, g.cwd):
        try:
            project = claude_project.hooks(g.cwd)
        except ValueError as exc:
            g.notify(str(exc), "error")
    elif files := claude_project.claude_files(g.cwd):
        g.notify(claude_project.untrusted_notice(g.cwd, files), "warning")
    hooks = Hooks(project)
    g.on("session_start", hooks.session_start)
    g.on("session_end", hooks.session_end)
    g.on("before_agent_start", hooks.before_agent_start)
    g.on("before_request", hooks.before_request)
    g.on("tool_call", hooks.tool_call)
    g.on("tool_end", hooks.tool_end)
    g.on("agent_end", hooks.agent_end)
    g.on("session_before_compact", hooks.session_before_compact)
