"""MCP servers as tools: the bundled `mcp` extension.

Servers come from `g.mcp(NAME, …)` and from settings (`{"mcp": {"servers": {NAME: {…}}}}`,
which win on a shared name): `{"command", "args", "env", "cwd"}` runs a stdio server,
`{"url", "headers"}` reaches a streamable-HTTP one. A `${VAR}` in a header or env value is taken
from the session's environment. On `session_start` every server starts in the background, all
in parallel: a prompt never waits for one, a slow one is reported and its tools are added when
it is ready, a failing one is reported. Tool `T` of server `NAME` becomes the auger tool
`NAME__T`, dispatched like every other tool. Servers stop on `session_shutdown`; on a reload only
those whose declaration changed restart. The `mcp` SDK is imported only once a server starts.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from auger.llm.messages import ImagePart
from auger.records import NoticeLevel
from auger.tools.base import Tool, ToolContext, ToolResponse

if TYPE_CHECKING:
    from mcp import Client

    from auger.engine.context import Context
    from auger.extensions.registrar import Registrar

SLOW_START = 10.0
STARTUP_TIMEOUT = 5.0
"""Seconds a turn waits, at most, for servers still starting (`mcp.startup_timeout`)."""
STOP_TIMEOUT = 10.0
STDIO_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _strings(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"{what} must map names to strings")
    return dict(value)


def check_server(name: str, server: Mapping[str, Any]) -> dict[str, Any]:
    """The declaration of MCP server `name`, normalized; `ValueError` says what is wrong."""
    if not isinstance(name, str) or not _NAME.match(name) or "__" in name:
        raise ValueError(
            f"MCP server name {name!r} must be letters, digits, '_' or '-' (and no '__')"
        )
    where = f"MCP server {name}"
    if not isinstance(server, Mapping):
        raise ValueError(f"{where} must be an object")
    command, url = server.get("command"), server.get("url")
    if (command is None) == (url is None):
        raise ValueError(f"{where} needs either a command (stdio) or a url (HTTP)")
    if url is not None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"{where}: url must be an http(s) URL")
        return {"url": url, "headers": _strings(server.get("headers"), f"{where}: headers")}
    args = server.get("args", [])
    if not isinstance(command, str) or not command:
        raise ValueError(f"{where}: command must be a string")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError(f"{where}: args must be a list of strings")
    cwd = server.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError(f"{where}: cwd must be a string")
    env = _strings(server.get("env"), f"{where}: env")
    return {"command": command, "args": list(args), "env": env, "cwd": cwd}


def _claude_servers(g: Registrar) -> dict[str, Any]:
    """A trusted project's `.mcp.json` servers (the claude_hooks extension gives the notice
    when the project is not trusted)."""
    from auger.extensions import claude_project

    if not claude_project.trusted(g.home, g.cwd):
        return {}
    try:
        return claude_project.mcp_servers(g.cwd)
    except ValueError as exc:
        g.notify(str(exc), "error")
        return {}


def tool_name(server: str, tool: str) -> str:
    """The auger name of `server`'s tool `tool`: `server__tool`, made safe for any provider."""
    return _UNSAFE.sub("_", f"{server}__{tool}")[:64]


def expand(value: str, env: Mapping[str, str], where: str) -> str:
    """`value` with each `${VAR}` replaced from `env`; a variable that is not set is an error."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ValueError(f"{where} names ${{{name}}}, which is not set")
        return env[name]

    return _VAR.sub(one, value)


def _reason(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return str(exc) or type(exc).__name__


class _Server:
    """One declared server: its task, and once it is ready, its client and tools."""

    def __init__(self, name: str, spec: dict[str, Any]) -> None:
        self.name = name
        self.spec = spec
        self.task: asyncio.Task[None] | None = None
        self.client: Client | None = None
        self.tools: list[Tool] = []
        self.slow = False
        self.settled = asyncio.Event()
        """Set once the server is ready or has failed."""


class McpServers:
    """The bundled `mcp` extension. One instance per Runtime, so servers outlive a reload."""

    def __init__(self) -> None:
        self._servers: dict[str, _Server] = {}
        self._g: Registrar | None = None
        self._wait_until = 0.0

    def __call__(self, g: Registrar) -> None:
        """Register the start and stop handlers on this load's registrar."""
        g.on("session_start", functools.partial(self._sync, g))
        g.on("before_agent_start", self._await_starting)
        g.on("session_shutdown", self._stop_all)

    def _declared(self, g: Registrar) -> dict[str, dict[str, Any]]:
        servers = g.mcp_servers
        configured = g.settings.get("servers") or {}
        if not isinstance(configured, dict):
            g.notify('settings "mcp.servers" must be an object of servers', "error")
            return servers
        configured = {**_claude_servers(g), **configured}  # settings win over .mcp.json
        for name, raw in configured.items():
            try:
                servers[name] = check_server(name, raw)
            except ValueError as exc:
                g.notify(str(exc), "error")
        return servers

    async def _sync(self, g: Registrar, event: Any, ctx: Context) -> None:
        """Start what is declared and not running (a failed server gets another try); stop
        what changed or went away; keep the rest, registering their tools on `g`."""
        self._g = g
        declared = self._declared(g)
        after = float(g.settings.get("slow_start", SLOW_START))
        wait = float(g.settings.get("startup_timeout", STARTUP_TIMEOUT))
        self._wait_until = asyncio.get_running_loop().time() + wait
        for name, server in list(self._servers.items()):
            running = server.task is not None and not server.task.done()
            if running and declared.get(name) == server.spec:
                for made in server.tools:
                    g.tool(made)
            else:
                del self._servers[name]
                if server.task is not None:
                    server.task.cancel()
        for name, spec in declared.items():
            if name not in self._servers:
                server = self._servers[name] = _Server(name, spec)
                server.task = asyncio.create_task(self._serve(server, ctx, after))

    async def _await_starting(self, event: Any) -> None:
        """Before a turn's first model call, wait (bounded by `mcp.startup_timeout`, counted
        from the session's start) for servers still starting, so their tools are there from
        the first step; a server still not ready joins at a later turn."""
        starting = [s.settled for s in self._servers.values() if not s.settled.is_set()]
        remaining = self._wait_until - asyncio.get_running_loop().time()
        if starting and remaining > 0:
            waits = [asyncio.ensure_future(settled.wait()) for settled in starting]
            _, pending = await asyncio.wait(waits, timeout=remaining)
            for waiting in pending:
                waiting.cancel()

    async def _stop_all(self, event: Any) -> None:
        servers, self._servers = list(self._servers.values()), {}
        tasks = [s.task for s in servers if s.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_TIMEOUT)

    def _notify(self, message: str, level: NoticeLevel) -> None:
        if self._g is not None:
            self._g.notify(message, level)

    def _is_slow(self, server: _Server, after: float) -> None:
        server.slow = True
        self._notify(
            f"MCP server {server.name} is slow to start ({after:g}s so far): "
            "its tools will be added once it is ready",
            "warning",
        )

    async def _serve(self, server: _Server, ctx: Context, after: float) -> None:
        """Connect, list the tools, register them, then hold the connection until cancelled."""
        import contextlib
        import tempfile

        timer = asyncio.get_running_loop().call_later(after, self._is_slow, server, after)
        with tempfile.TemporaryFile("w+") as errlog:
            try:
                async with contextlib.AsyncExitStack() as connection:
                    async with ctx.progress(f"starting MCP server {server.name}"):
                        client = await connection.enter_async_context(
                            _connect(server.spec, ctx, errlog)
                        )
                        listed = await _list_tools(client)
                    timer.cancel()
                    server.client = client
                    server.tools = [self._tool(server.name, t) for t in listed]
                    if self._servers.get(server.name) is server and self._g is not None:
                        for made in server.tools:
                            self._g.tool(made)
                    server.settled.set()
                    if server.slow:
                        self._notify(
                            f"MCP server {server.name} is ready ({len(listed)} tools)", "info"
                        )
                    await asyncio.get_running_loop().create_future()
            except Exception as exc:  # whatever a server does, the session goes on
                self._notify(
                    f"MCP server {server.name} failed: {_reason(exc)}{_stderr_tail(errlog)}",
                    "error",
                )
            finally:
                timer.cancel()
                server.settled.set()
                server.client = None

    def _tool(self, server_name: str, listed: Any) -> Tool:
        remote = listed.name

        async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResponse:
            return await self._call(server_name, remote, args)

        description = listed.description or listed.title or f"{remote} (MCP server {server_name})"
        schema = dict(listed.input_schema or {"type": "object", "properties": {}})
        return Tool(tool_name(server_name, remote), description, schema, run)

    async def _call(self, server_name: str, tool: str, args: dict[str, Any]) -> ToolResponse:
        server = self._servers.get(server_name)
        client = server.client if server is not None else None
        if client is None:
            return ToolResponse.error("unavailable", f"MCP server {server_name} is not running")
        try:
            result = await client.call_tool(tool, args)
        except Exception as exc:  # a broken server is a tool error the model sees
            return ToolResponse.error("tool_failed", f"MCP server {server_name}: {_reason(exc)}")
        return _response(result)


def _connect(spec: dict[str, Any], ctx: Context, errlog: Any) -> Client:
    from importlib.util import find_spec

    if find_spec("mcp") is None:
        raise RuntimeError("the mcp package is not installed: pip install 'auger[mcp]'")
    from mcp import Client
    from mcp.types import Implementation

    from auger._version import __version__

    info = Implementation(name="auger", version=__version__)
    if "url" in spec:
        return Client(_http(spec, ctx.env), client_info=info)
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: ctx.env[k] for k in STDIO_ENV if k in ctx.env}
    for key, value in spec["env"].items():
        env[key] = expand(value, ctx.env, f"env {key}")
    cwd = ctx.cwd / spec["cwd"] if spec["cwd"] else ctx.cwd
    params = StdioServerParameters(command=spec["command"], args=spec["args"], env=env, cwd=cwd)
    return Client(stdio_client(params, errlog=errlog), client_info=info)


def _http(spec: dict[str, Any], env: Mapping[str, str]) -> Any:
    import contextlib

    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {k: expand(v, env, f"header {k}") for k, v in spec["headers"].items()}

    @contextlib.asynccontextmanager
    async def transport() -> Any:
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
            streamable_http_client(spec["url"], http_client=http) as streams,
        ):
            yield streams

    return transport()


async def _list_tools(client: Client) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


def _stderr_tail(errlog: Any) -> str:
    errlog.seek(0)
    lines = [line for line in errlog.read().splitlines() if line.strip()]
    return f" — {lines[-1].strip()[:300]}" if lines else ""


def _response(result: Any) -> ToolResponse:
    """An MCP tool result as a tool response: its text, its images, its error flag."""
    from auger.tools.truncate import head

    texts: list[str] = []
    images: list[ImagePart] = []
    for block in result.content:
        kind = block.type
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            images.append(ImagePart(block.mime_type, block.data))
        elif kind == "resource":
            texts.append(
                getattr(block.resource, "text", None) or f"[resource {block.resource.uri}]"
            )
        elif kind == "resource_link":
            texts.append(f"[resource {block.uri}]")
        else:
            texts.append(f"[{kind} content]")
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content))
    cut = head("\n".join(texts))
    text = cut.text
    if cut.truncated:
        text += f"\n\n[output truncated: {cut.kept_lines} of {cut.total_lines} lines shown]"
    return ToolResponse(text, "tool_failed" if result.is_error else None, tuple(images))
