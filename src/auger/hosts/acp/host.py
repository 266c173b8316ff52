"""The ACP side of the host protocol: permission questions go to the client as
`session/request_permission`, with the tool call's real id, and are awaited on the session's
loop while the connection's loop carries the messages (no thread waits)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Protocol, TypeVar

from acp.helpers import text_block, tool_content
from acp.schema import (
    AllowedOutcome,
    FileEditToolCallContent,
    PermissionOption,
    ToolCallUpdate,
)

from auger.host import Capability, NullHost
from auger.hosts.acp.updates import locations, tool_kind
from auger.llm import arguments_or_empty
from auger.records import Decision, PermissionRequest, ToolCallDone

T = TypeVar("T")

OPTIONS: dict[Decision, PermissionOption] = {
    "allow_once": PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    "allow_session": PermissionOption(
        option_id="allow_session", name="Allow for this session", kind="allow_always"
    ),
    "allow_always": PermissionOption(
        option_id="allow_always", name="Always allow", kind="allow_always"
    ),
    "deny": PermissionOption(option_id="deny", name="Reject", kind="reject_once"),
}
"""Each decision as the ACP option a client shows."""
OUTCOMES: dict[str, Decision] = {option.option_id: decision for decision, option in OPTIONS.items()}


def what_it_does(request: PermissionRequest) -> list[Any] | None:
    """What the call would do, as ACP tool-call content: a file's diff, or the command, where it
    runs and what it runs, or the MCP server and tool."""
    if request.path is not None and request.new_text is not None:
        diff = FileEditToolCallContent(
            type="diff", path=request.path, old_text=request.old_text, new_text=request.new_text
        )
        return [diff]
    lines: list[str] = []
    if request.tool == "bash":
        lines.append(f"$ {request.args.get('command', '')}")
        if request.cwd:
            lines.append(f"in {request.cwd}")
        lines.append("runs: " + (", ".join(request.runs or ()) or "(cannot be read)"))
    elif request.server:
        lines.append(f"MCP server {request.server} · tool {request.tool.split('__', 1)[1]}")
    return [tool_content(text_block("\n".join(lines)))] if lines else None


def _named(option: PermissionOption, request: PermissionRequest) -> PermissionOption:
    """`option`, its name saying what it allows for this request."""
    if option.option_id == "allow_session" and request.scope:
        return option.model_copy(update={"name": f"Allow for this session: {request.scope}"})
    if option.option_id == "allow_always" and request.rule:
        return option.model_copy(update={"name": f"Always allow — saves {request.rule}"})
    return option


class Session(Protocol):
    """What the host needs of its ACP session: its id, and the tool calls under way."""

    id: str
    calls: dict[str, ToolCallDone]


class Connection(Protocol):
    """The part of the ACP client connection the host uses."""

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate
    ) -> Any:
        """Ask the client; its response has an `outcome`."""
        ...


class AcpHost(NullHost):
    """A session's host: it asks the client for permission (and to confirm)."""

    capabilities: frozenset[Capability] = frozenset({"confirm", "permission"})

    def __init__(
        self, conn: Connection, loop: asyncio.AbstractEventLoop, session: Session, cwd: Path
    ) -> None:
        self._conn = conn
        self._cwd = cwd
        self._loop = loop
        self._session = session

    async def request_permission(self, request: PermissionRequest) -> Decision:
        """The client's answer about one tool call; `deny` when it cancelled."""
        if not self._session.id:
            return "deny"
        tool_call = ToolCallUpdate(
            tool_call_id=request.call_id,
            title=request.title,
            kind=tool_kind(request.tool),
            status="pending",
            raw_input=request.args,
            locations=locations(request.args, self._cwd),
            content=what_it_does(request),
        )
        options = [_named(OPTIONS[d], request) for d in request.options if d in OPTIONS]
        return await self._ask(tool_call, options)

    async def confirm(self, question: str) -> bool:
        """Yes or no, asked as a permission about the call under way (if any)."""
        if not self._session.id:
            return False
        call = next(iter(self._session.calls.values()), None)
        if call is None:
            tool_call = ToolCallUpdate(tool_call_id="permission", title=question)
        else:
            args = arguments_or_empty(call.arguments)
            tool_call = ToolCallUpdate(
                tool_call_id=call.call_id,
                title=question,
                kind=tool_kind(call.name),
                status="pending",
                raw_input=args,
            )
        options = [OPTIONS["allow_once"], OPTIONS["deny"]]
        return await self._ask(tool_call, options) == "allow_once"

    async def _ask(self, tool_call: ToolCallUpdate, options: list[PermissionOption]) -> Decision:
        response = await self._on_connection(
            self._conn.request_permission(
                options=options, session_id=self._session.id, tool_call=tool_call
            )
        )
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in OUTCOMES:
            return OUTCOMES[outcome.option_id]
        return "deny"

    async def _on_connection(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the connection's loop, awaiting it from this one."""
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self._loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))
