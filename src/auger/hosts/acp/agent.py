"""The ACP agent behind `auger acp` (built on the `agent-client-protocol` SDK).

Each ACP session is one Runtime, living on an event loop of its own thread (so one session's
work never slows the connection); a permission question is awaited there while the connection's
loop carries `session/request_permission` to the client and back. Records become `session/update`s:
text and reasoning deltas are message and thought chunks; a tool call is announced (`pending`,
with its kind), runs (`in_progress`) and ends (`completed` or `failed`, with its output); each
model response's usage updates the context size and the session's cost. The client's MCP servers
are declared with `g.mcp`, the session's commands are advertised and run from a `/name` prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import threading
from collections.abc import Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.helpers import (
    update_available_commands,
)
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    Usage,
)

from auger import ExtensionError
from auger._version import __version__
from auger.config import ConfigError, auger_home
from auger.hosts.acp.host import AcpHost
from auger.hosts.acp.updates import STOP_REASONS, prompt_text, record_update
from auger.records import (
    AfterToolCall,
    Record,
    ToolCallDone,
    TurnEnd,
)
from auger.runtime import Runtime

T = TypeVar("T")

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class _Worker:
    """An event loop on a thread of its own, where one session's Runtime lives."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on this loop and wait for it from the caller's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        """Stop the loop and its thread, once what still runs there (a session being built
        when the client hung up) has been cancelled and has finished."""

        async def settle() -> None:
            tasks = asyncio.all_tasks() - {asyncio.current_task()}
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(TimeoutError, RuntimeError):  # slow or already closed
            asyncio.run_coroutine_threadsafe(settle(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()


class _Session:
    """One ACP session: its Runtime, the thread it runs on, and the tool calls under way."""

    def __init__(self, worker: _Worker) -> None:
        self.worker = worker
        self.id = ""
        self.runtime: Runtime | None = None
        self.calls: dict[str, ToolCallDone] = {}
        self.busy = False
        self.commands: list[tuple[str, str]] = []

    @property
    def rt(self) -> Runtime:
        """The Runtime (built once the session exists)."""
        assert self.runtime is not None
        return self.runtime

    def extension(self, servers: list[Any]) -> Any:
        """This session's own extension: the client's MCP servers, and call tracking."""

        def announced(record: ToolCallDone) -> None:
            self.calls[record.call_id] = record

        def finished(record: AfterToolCall) -> None:
            self.calls.pop(record.call_id, None)

        def extension(g: Any) -> None:
            for server in servers:
                _declare(g, server)
            g.on("tool_call_done", announced)
            g.on("after_tool_call", finished)

        return extension


def _declare(g: Any, server: Any) -> None:
    name = _UNSAFE.sub("_", server.name).strip("_") or "client"
    try:
        if isinstance(server, McpServerStdio):
            env = {e.name: e.value for e in server.env}
            g.mcp(name, command=server.command, args=list(server.args), env=env)
        elif isinstance(server, HttpMcpServer):
            g.mcp(name, url=server.url, headers={h.name: h.value for h in server.headers})
        else:
            g.notify(
                f"MCP server {server.name}: only stdio and HTTP servers are supported", "error"
            )
    except ExtensionError as exc:
        g.notify(str(exc), "error")


class AcpAgent:
    """The ACP agent: answers the client's requests, one Runtime per session."""

    def __init__(self, opts: Any) -> None:
        self._opts = opts
        self._conn: Any = None
        self._sessions: dict[str, _Session] = {}
        self._background: set[asyncio.Task[None]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def on_connect(self, conn: Any) -> None:
        """Keep the connection to the client."""
        self._conn = conn
        self.loop = asyncio.get_running_loop()

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        """What auger can do."""
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="auger", version=__version__),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        """Start a session in `cwd` with the client's MCP servers."""
        session = await self._open(cwd, mcp_servers or [])
        self._adopt(session, session.rt.session_id)
        self._advertise_soon(session)
        return NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Reopen a saved session and replay its conversation as `session/update`s."""
        from auger import sessions

        try:
            saved = sessions.open(sessions.find(auger_home(os.environ), Path(cwd), session_id))
        except sessions.SessionError as exc:
            raise RequestError(-32002, str(exc)) from None
        session = await self._open(cwd, mcp_servers or [], saved)
        self._adopt(session, session_id)
        for record in list(session.rt.history()):
            update = record_update(record, session.rt)
            if update is not None:
                await self._conn.session_update(session_id=session_id, update=update)
        self._advertise_soon(session)
        return LoadSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The saved sessions of `cwd` (of every directory without one), newest first."""
        from auger import sessions

        found = sessions.list(auger_home(os.environ), Path(cwd) if cwd else None)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=s.id,
                    cwd=s.cwd,
                    title=s.name or s.title or None,
                    updated_at=datetime.fromtimestamp(s.modified, UTC).isoformat(),
                )
                for s in found
            ]
        )

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Run what the user sent (a prompt, or a `/command`), streaming its updates."""
        session = self._session(session_id)
        if session.busy:
            raise RequestError(-32600, "a prompt is already running in this session")
        session.busy = True
        try:
            end = await self._run(session, prompt_text(prompt))
        finally:
            session.busy = False
        await self._advertise(session)
        if end.stop_reason == "error":
            message = (end.error or {}).get("message", "the turn failed")
            raise RequestError(-32603, message, end.error)
        usage = end.usage
        return PromptResponse(
            stop_reason=STOP_REASONS.get(end.stop_reason, "end_turn"),
            usage=Usage(
                total_tokens=usage.input_tokens + usage.output_tokens,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cached_read_tokens=usage.cache_read_tokens,
                cached_write_tokens=usage.cache_write_tokens,
            ),
        )

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Stop the session's running turn."""
        session = self._sessions.get(session_id)
        if session is not None and session.runtime is not None:
            session.runtime.cancel()

    async def close(self) -> None:
        """End every session: each Runtime closes on its own loop, then the loop stops."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            if session.runtime is not None:
                session.runtime.cancel()
                await session.worker.run(session.runtime.close())
            session.worker.stop()

    # -- sessions -------------------------------------------------------------------------

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError(-32002, f"no session {session_id!r}")
        return session

    async def _open(self, cwd: str, servers: list[Any], saved: Any = None) -> _Session:
        """A session with its own loop and Runtime (continuing `saved`, a session file)."""
        from auger.hosts.launch import options
        from auger.loader import build as build_runtime

        session = _Session(_Worker())
        assert self.loop is not None
        host = AcpHost(self._conn, self.loop, session, Path(cwd))

        async def build() -> Runtime:
            extension = ("acp", session.extension(servers))
            wanted = options(self._opts, Path(cwd))
            return await build_runtime(wanted, host, extensions=[extension], session=saved)

        try:
            session.runtime = await session.worker.run(build())
        except BaseException as exc:
            session.worker.stop()
            if isinstance(exc, ConfigError):
                raise RequestError(-32603, f"auger: {exc}") from None
            raise
        return session

    def _adopt(self, session: _Session, session_id: str) -> None:
        session.id = session_id
        self._sessions[session_id] = session

    def _advertise_soon(self, session: _Session) -> None:
        """Advertise the commands once the session's response is out."""
        task = asyncio.create_task(self._advertise(session))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _advertise(self, session: _Session) -> None:
        """Send the session's commands when they are new or changed."""
        commands = sorted((c.name, c.description) for c in session.rt.commands.values())
        if commands == session.commands:
            return
        session.commands = commands
        update = update_available_commands(
            AvailableCommand(name=name, description=description or name)
            for name, description in commands
        )
        await self._conn.session_update(session_id=session.id, update=update)

    async def _run(self, session: _Session, text: str) -> TurnEnd:
        """Stream one submission's records from the session's loop to the client, in order."""
        main = asyncio.get_running_loop()
        queue: asyncio.Queue[Record | None] = asyncio.Queue()
        rt = session.rt

        async def pump() -> None:
            try:
                async for record in rt.submit(text):
                    main.call_soon_threadsafe(queue.put_nowait, record)
            finally:
                main.call_soon_threadsafe(queue.put_nowait, None)

        running = asyncio.run_coroutine_threadsafe(pump(), session.worker.loop)
        end: TurnEnd | None = None
        try:
            while (record := await queue.get()) is not None:
                if isinstance(record, TurnEnd):
                    end = record
                update = record_update(record, rt)
                if update is not None:
                    await self._conn.session_update(session_id=session.id, update=update)
            await asyncio.wrap_future(running)
        finally:
            if not running.done():
                rt.cancel()
        assert end is not None
        return end


async def serve(opts: Any) -> None:
    """Serve one client on stdin and stdout until it hangs up, then close every session."""
    agent = AcpAgent(opts)
    try:
        await run_agent(agent)  # type: ignore[arg-type]  # the SDK's Agent is a protocol of every method
    finally:
        await agent.close()
