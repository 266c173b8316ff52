"""MCP servers through auger: the real `mcp-server-time` and `mcp-server-git`, and one over HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

from auger.extensions.mcp import check_server, expand, tool_name
from auger.llm.messages import ToolResultMessage
from auger.llm.records import Record
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import AfterToolCall, BeforeToolCall, Notify
from auger.runtime import Runtime
from support.procs import running
from support.runtime import collect

BIN = Path(sys.executable).parent
TIME = str(BIN / "mcp-server-time")
GIT = str(BIN / "mcp-server-git")
LATE = Path(__file__).parents[1] / "support" / "late_mcp.py"
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


class Notices(list[tuple[str, str]]):
    """Every `(level, message)` notice of a Runtime: those its prompts stream, and those it
    hands its idle listener between prompts."""

    def listen(self, rt: Runtime) -> Runtime:
        rt.listen(self.keep)
        return rt

    def keep(self, record: Record) -> None:
        if isinstance(record, Notify):
            self.append((record.level, record.message))

    async def collect(self, rt: Runtime, text: str) -> list[Record]:
        records = await collect(rt, text)
        for record in records:
            self.keep(record)
        return records


AUTO = {"permissions": {"mode": "auto"}}  # these tests are about MCP, not permissions


def runtime(tmp_path: Path, provider: ScriptedProvider, **options: Any) -> Runtime:
    """A Runtime with the bundled extensions (MCP among them), isolated under `tmp_path`."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    options.setdefault("env", ENV)
    options["settings"] = AUTO | options.get("settings", {})
    return Runtime(provider=provider, home=home, cwd=cwd, **options)


async def wait_until(condition: Any, timeout: float = 30.0) -> None:
    """Poll `condition()` until it is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


def git_repo(path: Path, message: str) -> Path:
    """A git repository at `path` with one commit named `message`."""
    path.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    (path / "README").write_text("hello\n")
    for args in (["init", "-q"], ["add", "README"], ["commit", "-qm", message]):
        subprocess.run(["git", *args], cwd=path, env=env, check=True)
    return path


def results(records: list[Record]) -> dict[str, AfterToolCall]:
    return {r.tool: r for r in records if isinstance(r, AfterToolCall)}


async def test_time_server_tools_go_through_the_dispatch_and_reach_the_next_request(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    def guard(g: Any) -> None:
        def on_call(e: Any) -> str | None:
            seen.append(e.name)
            return "no conversions today" if e.name == "time__convert_time" else None

        g.on("tool_call", on_call)

    provider = ScriptedProvider(
        [
            Reply.of("hello"),
            Reply.of(
                Call("time__get_current_time", {"timezone": "UTC"}),
                Call("time__convert_time", {"source_timezone": "UTC", "time": "12:00"}),
            ),
            Reply.of("It is now."),
        ]
    )
    settings = {"mcp": {"servers": {"time": {"command": TIME}}}}
    rt = runtime(tmp_path, provider, settings=settings, extensions=[("guard", guard)])
    await collect(rt, "hi")
    await wait_until(lambda: "time__get_current_time" in rt.tools)
    records = await collect(rt, "what time is it in UTC?")
    await rt.close()

    assert seen == ["time__get_current_time", "time__convert_time"]
    done = results(records)
    current = done["time__get_current_time"].result
    assert current.error_type is None
    assert json.loads(current.content)["timezone"] == "UTC"
    assert done["time__convert_time"].result.error_type == "blocked"
    assert [r.tool for r in records if isinstance(r, BeforeToolCall)] == ["time__get_current_time"]
    answered = [m for m in provider.requests[-1].messages if isinstance(m, ToolResultMessage)]
    assert answered[0].text == current.content
    assert answered[1].text == "ERROR: no conversions today"
    spec = next(t for t in provider.requests[1].tools if t.name == "time__get_current_time")
    assert spec.parameters["required"] == ["timezone"]


async def test_the_first_model_call_waits_for_starting_servers(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("time__get_current_time", {"timezone": "UTC"})), Reply.of("It is now.")]
    )
    settings = {"mcp": {"startup_timeout": 30, "servers": {"time": {"command": TIME}}}}
    rt = runtime(tmp_path, provider, settings=settings)
    records = await collect(rt, "what time is it in UTC?")  # at once: the server is starting
    await rt.close()
    assert "time__get_current_time" in [t.name for t in provider.requests[0].tools]
    assert results(records)["time__get_current_time"].result.error_type is None


async def test_git_server_declared_with_g_mcp(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo", "the first commit")

    def git(g: Any) -> None:
        g.mcp("git", command=GIT, args=["--repository", str(repo)])

    provider = ScriptedProvider(
        [
            Reply.of("ready"),
            Reply.of(Call("git__git_log", {"repo_path": str(repo)})),
            Reply.of("One commit."),
        ]
    )
    rt = runtime(tmp_path, provider, extensions=[("git", git)])
    await collect(rt, "hi")
    await wait_until(lambda: "git__git_log" in rt.tools)
    records = await collect(rt, "show the log")
    await rt.close()

    log = results(records)["git__git_log"].result
    assert log.error_type is None
    assert "the first commit" in log.content
    last = provider.requests[-1].messages[-1]
    assert isinstance(last, ToolResultMessage)
    assert "the first commit" in last.text


async def test_the_tools_allowlist_applies_to_mcp_tools(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("ok")])
    settings = {"mcp": {"servers": {"time": {"command": TIME}}}}
    rt = runtime(tmp_path, provider, settings=settings, tools=["time__get_current_time"])
    await collect(rt, "hi")
    await wait_until(lambda: "time__get_current_time" in rt.tools)
    assert list(rt.tools) == ["time__get_current_time"]
    await rt.close()


async def test_a_failing_server_is_reported_and_the_prompt_goes_on(tmp_path: Path) -> None:
    notices = Notices()
    provider = ScriptedProvider([Reply.of("fine")])
    settings = {"mcp": {"servers": {"broken": {"command": str(tmp_path / "no-such-server")}}}}
    rt = notices.listen(runtime(tmp_path, provider, settings=settings))
    records = await notices.collect(rt, "hi")
    assert records[-1].stop_reason == "completed"
    await wait_until(lambda: any("broken" in m for _, m in notices))
    level, message = notices[-1]
    assert level == "error"
    assert message.startswith("MCP server broken failed:")
    await rt.close()


async def test_the_host_shows_each_server_starting_until_it_is_ready_or_fails(
    tmp_path: Path,
) -> None:
    from support.hosts import Watching

    host, gate = Watching(), tmp_path / "gate"
    gate.mkdir()
    late = {"command": sys.executable, "args": [str(LATE), str(gate)]}
    broken = {"command": str(tmp_path / "no-such-server")}
    settings = {"mcp": {"startup_timeout": 0, "servers": {"late": late, "broken": broken}}}
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("hi")]), host=host, settings=settings)
    records = await collect(rt, "hi")
    assert records[-1].stop_reason == "completed"  # the prompt did not wait for either
    await wait_until(lambda: host.open() == ["starting MCP server late"])
    broken_end = next(s for s in host.shown if s[:2] == ("end", "starting MCP server broken"))
    assert broken_end[2] is not None  # it ended with the failure
    (gate / "go").touch()
    await wait_until(lambda: host.open() == [])
    assert host.shown[-1] == ("end", "starting MCP server late", None)
    await rt.close()


async def test_a_slow_server_never_holds_up_a_prompt_and_stops_on_close(tmp_path: Path) -> None:
    notices = Notices()
    provider = ScriptedProvider([Reply.of("quick")])
    marker = f"sleepy-{tmp_path.name}"
    sleeper = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)", marker]}
    settings = {"mcp": {"slow_start": 0.2, "startup_timeout": 0.5, "servers": {"sleepy": sleeper}}}
    rt = notices.listen(runtime(tmp_path, provider, settings=settings))
    started = time.monotonic()
    records = await notices.collect(rt, "hi")
    assert time.monotonic() - started < 3.0  # the prompt waited 0.5 s for it, no more
    assert records[-1].stop_reason == "completed"
    await wait_until(lambda: notices, timeout=5)
    assert notices == [
        (
            "warning",
            "MCP server sleepy is slow to start (0.2s so far): "
            "its tools will be added once it is ready",
        )
    ]
    assert running(marker)
    await rt.close()
    assert not running(marker)


async def test_reload_keeps_unchanged_servers_and_restarts_changed_ones(tmp_path: Path) -> None:
    first = git_repo(tmp_path / "first", "in the first repo")
    second = git_repo(tmp_path / "second", "in the second repo")
    declared = {"repo": first}

    def git(g: Any) -> None:
        g.mcp("git", command=GIT, args=["--repository", str(declared["repo"])])

    provider = ScriptedProvider(
        [
            Reply.of("ready"),
            Reply.of("reloaded"),
            Reply.of(Call("git__git_log", {"repo_path": str(second)})),
            Reply.of("done"),
        ]
    )
    settings = {"mcp": {"servers": {"time": {"command": TIME}}}}
    rt = runtime(tmp_path, provider, settings=settings, extensions=[("git", git)])
    await collect(rt, "hi")
    await wait_until(lambda: {"time__get_current_time", "git__git_log"} <= set(rt.tools))

    declared["repo"] = second
    assert await rt.reload()
    await collect(rt, "after the reload")
    offered = {t.name for t in provider.requests[-1].tools}
    assert "time__get_current_time" in offered  # kept running
    assert "git__git_log" in offered  # restarted with its new declaration, and waited for

    records = await collect(rt, "log of the second repo")
    await rt.close()
    assert "in the second repo" in results(records)["git__git_log"].result.content


@pytest.fixture
def http_server() -> Iterator[str]:
    """A streamable-HTTP MCP server on 127.0.0.1 whose `whoami` tool returns the
    Authorization header it was sent; yields its URL."""
    server = MCPServer("echo")

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The caller's Authorization header."""
        return (ctx.headers or {}).get("authorization", "none")

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.streamable_http_app(), log_level="error", lifespan="on")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    running.should_exit = True
    thread.join(timeout=10)
    sock.close()


async def test_http_server_gets_a_credential_from_the_session_env(
    tmp_path: Path, http_server: str
) -> None:
    provider = ScriptedProvider(
        [Reply.of("ready"), Reply.of(Call("echo__whoami", {})), Reply.of("done")]
    )
    server = {"url": http_server, "headers": {"Authorization": "Bearer ${ECHO_TOKEN}"}}
    settings = {"mcp": {"servers": {"echo": server}}}
    env = {**ENV, "ECHO_TOKEN": "s3cret"}
    rt = runtime(tmp_path, provider, settings=settings, env=env)
    await collect(rt, "hi")
    await wait_until(lambda: "echo__whoami" in rt.tools)
    records = await collect(rt, "who am I?")
    await rt.close()
    assert results(records)["echo__whoami"].result.content == "Bearer s3cret"


async def test_a_header_naming_an_unset_variable_fails_that_server(tmp_path: Path) -> None:
    notices = Notices()
    provider = ScriptedProvider([Reply.of("fine")])
    server = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${NOPE}"}}
    rt = notices.listen(runtime(tmp_path, provider, settings={"mcp": {"servers": {"x": server}}}))
    await notices.collect(rt, "hi")
    await wait_until(lambda: notices)
    assert notices == [
        ("error", "MCP server x failed: header Authorization names ${NOPE}, which is not set")
    ]
    await rt.close()


def test_declarations_are_checked() -> None:
    assert check_server("t", {"command": "srv"}) == {
        "command": "srv",
        "args": [],
        "env": {},
        "cwd": None,
    }
    assert check_server("h", {"url": "https://x/mcp"}) == {"url": "https://x/mcp", "headers": {}}
    for name, server, problem in [
        ("a b", {"command": "x"}, "must be letters"),
        ("a__b", {"command": "x"}, "no '__'"),
        ("a", {}, "needs either a command"),
        ("a", {"command": "x", "url": "http://y"}, "needs either a command"),
        ("a", {"command": "x", "args": "-v"}, "args must be a list"),
        ("a", {"url": "ftp://y"}, "url must be an http"),
        ("a", {"url": "http://y", "headers": {"k": 1}}, "headers must map"),
    ]:
        with pytest.raises(ValueError, match=problem):
            check_server(name, server)


async def test_a_bad_g_mcp_call_fails_that_extension_load(tmp_path: Path) -> None:
    notices = Notices()

    def bad(g: Any) -> None:
        g.mcp("bad", command="x", url="http://y")

    rt = runtime(tmp_path, ScriptedProvider([Reply.of("fine")]), extensions=[("bad", bad)])
    await notices.collect(rt, "hi")
    assert notices == [
        (
            "error",
            "Extension bad failed to load: MCP server bad needs either a command (stdio) "
            "or a url (HTTP)",
        )
    ]


def test_names_and_variables() -> None:
    assert tool_name("time", "get_current_time") == "time__get_current_time"
    assert tool_name("s", "a.b/c") == "s__a_b_c"
    assert len(tool_name("s", "x" * 100)) == 64
    assert expand("Bearer ${T}-${T}", {"T": "k"}, "header A") == "Bearer k-k"
    with pytest.raises(ValueError, match="header A names"):
        expand("${MISSING}", {}, "header A")


def test_no_server_declared_imports_no_mcp_sdk() -> None:
    code = (
        "import sys, tempfile, asyncio; from auger.runtime import Runtime; "
        "from auger.llm.scripted import ScriptedProvider, Reply; "
        "d = tempfile.mkdtemp(); "
        "rt = Runtime(provider=ScriptedProvider([Reply.of('x')]), env={}, home=d, cwd=d, "
        "settings={}); "
        "asyncio.run(rt.ask('hi')); asyncio.run(rt.close()); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'acp', 'anyio'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr
