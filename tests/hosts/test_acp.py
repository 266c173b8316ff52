"""`auger acp` driven over pipes by a client built with the `agent-client-protocol` SDK."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    McpServerStdio,
    RequestPermissionResponse,
)

from support.cli import Project

TIME = str(Path(sys.executable).parent / "mcp-server-time")
COMMANDS = "available_commands_update"


class Client:
    """An ACP client that keeps every update, and answers permission requests from a list."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self._answers = list(answers or [])

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        answer = self._answers.pop(0) if self._answers else None
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: str) -> list[Any]:
        """The updates of one kind (`session_update`), in order."""
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str) -> str:
        """The text of every chunk of one kind, joined."""
        return "".join(u.content.text for u in self.of(kind))

    async def wait_for(self, kind: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while not self.of(kind):
            assert time.monotonic() < deadline, f"no {kind} update"
            await asyncio.sleep(0.02)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


@asynccontextmanager
async def agent(project: Project, client: Client, *args: str) -> AsyncIterator[Any]:
    """`auger acp ARGS` as a subprocess, initialized; yields the client-side connection."""
    command, *rest = project.command("acp", *args)
    async with spawn_agent_process(client, command, *rest, env=project.env, cwd=project.root) as (
        conn,
        _process,
    ):
        await conn.initialize(protocol_version=1)
        yield conn


async def test_a_prompt_streams_thoughts_tool_calls_and_the_reply(project: Project) -> None:
    project.script(
        [
            {
                "parts": [
                    {"reasoning": "let me look"},
                    {"tool": "read", "args": {"path": "notes.txt"}},
                    {"tool": "read", "args": {"path": "missing.txt"}},
                ]
            },
            {"text": "The notes say hi."},
        ]
    )
    (project.root / "notes.txt").write_text("hi there\n")
    client = Client()
    command, *rest = project.command("acp")
    async with spawn_agent_process(client, command, *rest, env=project.env, cwd=project.root) as (
        conn,
        _process,
    ):
        init = await conn.initialize(protocol_version=1)
        caps = init.agent_capabilities
        assert caps.load_session is True and caps.mcp_capabilities.http is True
        assert caps.session_capabilities.list is not None
        assert init.agent_info.name == "auger"
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("what do my notes say?")]
        )

    assert answer.stop_reason == "end_turn"
    assert answer.usage.input_tokens > 0 and answer.usage.output_tokens > 0
    (commands,) = client.of("available_commands_update")
    assert {"help", "cost", "compact"} <= {c.name for c in commands.available_commands}
    assert client.text("agent_thought_chunk") == "let me look"
    assert client.text("agent_message_chunk") == "The notes say hi."

    calls = [u for u in client.updates if u.session_update in ("tool_call", "tool_call_update")]
    first = [u for u in calls if u.tool_call_id == "call_1"]
    assert [u.status for u in first] == ["pending", "in_progress", "completed"]
    assert (first[0].kind, first[0].title) == ("read", "read: notes.txt")
    assert first[0].locations[0].path == str(project.root / "notes.txt")
    assert "hi there" in first[-1].content[0].content.text
    second = [u for u in calls if u.tool_call_id == "call_2"]
    assert [u.status for u in second] == ["pending", "in_progress", "failed"]

    usage = client.of("usage_update")
    assert len(usage) == 2 and usage[-1].size > 0 and usage[-1].used > 0


async def test_cancel_ends_the_prompt_as_cancelled(project: Project) -> None:
    project.script([{"parts": [{"text": "starting"}, {"delay": 30}, {"text": "never"}]}])
    client = Client()
    async with agent(project, client) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        running = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        )
        await client.wait_for("agent_message_chunk")
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(running, 15)
    assert answer.stop_reason == "cancelled"
    assert client.text("agent_message_chunk") == "starting"


async def test_slash_commands_run_from_a_prompt(project: Project) -> None:
    project.script([])
    client = Client()
    async with agent(project, client) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("/cost")])
    assert answer.stop_reason == "end_turn"
    assert client.text("agent_message_chunk").startswith("Tokens: 0 in, 0 out")


async def test_a_tool_call_handler_asks_the_client_for_permission(project: Project) -> None:
    guard = project.root / "guard.py"
    guard.write_text(
        "def extension(g):\n"
        "    async def guard(e, ctx):\n"
        "        if not await ctx.confirm(f'Allow {e.name}?'):\n"
        "            return 'the user said no'\n"
        "    g.on('tool_call', guard)\n"
    )
    project.script(
        [
            {"parts": [{"tool": "ls", "args": {"path": "."}}, {"tool": "ls", "args": {}}]},
            {"text": "ok"},
        ]
    )
    client = Client(answers=["deny", "allow_once"])
    async with agent(project, client, "--extension", str(guard)) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("look around")])

    asked = [(p.tool_call_id, p.title, p.kind) for p in client.permissions]
    assert asked == [("call_1", "Allow ls?", "read"), ("call_2", "Allow ls?", "read")]
    ends = {u.tool_call_id: u for u in client.of("tool_call_update") if u.status != "in_progress"}
    assert ends["call_1"].status == "failed"
    assert ends["call_1"].content[0].content.text == "ERROR: the user said no"
    assert ends["call_2"].status == "completed"


async def test_a_permission_request_reaches_the_client_with_the_calls_id(project: Project) -> None:
    gate = project.root / "gate.py"
    gate.write_text(
        "from auger.records import PermissionRequest\n"
        "def extension(g):\n"
        "    async def gate(e, ctx):\n"
        "        asked = PermissionRequest(e.call_id, e.name, e.input, f'Run {e.name}?')\n"
        "        decision = await ctx.request_permission(asked)\n"
        "        return None if decision != 'deny' else f'{e.name} was denied'\n"
        "    g.on('tool_call', gate)\n"
    )
    project.script(
        [
            {"parts": [{"tool": "ls", "args": {"path": "."}}, {"tool": "ls", "args": {}}]},
            {"text": "ok"},
        ]
    )
    client = Client(answers=["allow_always", "deny"])
    async with agent(project, client, "--extension", str(gate)) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("look around")])

    asked = [(p.tool_call_id, p.title, p.kind, p.raw_input) for p in client.permissions]
    assert asked == [
        ("call_1", "Run ls?", "read", {"path": "."}),
        ("call_2", "Run ls?", "read", {}),
    ]
    ends = {u.tool_call_id: u for u in client.of("tool_call_update") if u.status != "in_progress"}
    assert ends["call_1"].status == "completed"
    assert ends["call_2"].content[0].content.text == "ERROR: ls was denied"


async def test_the_clients_mcp_servers_become_tools(project: Project) -> None:
    project.script(
        [
            {"parts": [{"tool": "time__get_current_time", "args": {"timezone": "UTC"}}]},
            {"text": "done"},
        ]
    )
    client = Client()
    time_server = McpServerStdio(name="time", command=TIME, args=[], env=[])
    async with agent(project, client) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[time_server])
        deadline = time.monotonic() + 30
        while "time__get_current_time" not in client.text("agent_message_chunk"):
            assert time.monotonic() < deadline, "the MCP server's tools never appeared"
            await conn.prompt(session_id=session.session_id, prompt=[text_block("/tools")])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("time?")])

    (started,) = [u for u in client.of("tool_call") if u.title == "time__get_current_time"]
    assert started.kind == "other"
    (ended,) = [u for u in client.of("tool_call_update") if u.status == "completed"]
    assert '"timezone": "UTC"' in ended.content[0].content.text


async def test_a_saved_session_is_listed_and_loaded(project: Project) -> None:
    project.script(
        [
            {"parts": [{"tool": "ls", "args": {"path": "."}}]},
            {"text": "An empty folder."},
        ]
    )
    first = Client()
    async with agent(project, first) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what is here?")])
    saved = session.session_id

    project.script([{"text": "Still empty."}])
    second = Client()
    async with agent(project, second) as conn:
        listed = await conn.list_sessions(cwd=str(project.root))
        assert [(s.session_id, s.title) for s in listed.sessions] == [(saved, "what is here?")]
        await conn.load_session(cwd=str(project.root), session_id=saved, mcp_servers=[])
        replayed = [u.session_update for u in second.updates if u.session_update != COMMANDS]
        answer = await conn.prompt(session_id=saved, prompt=[text_block("and now?")])

    assert replayed == [
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]
    assert second.of("user_message_chunk")[0].content.text == "what is here?"
    assert second.of("tool_call_update")[0].status == "completed"
    assert answer.stop_reason == "end_turn"
    assert second.text("agent_message_chunk") == "An empty folder.Still empty."


async def test_a_session_without_a_model_is_an_error(project: Project) -> None:
    async with agent(project, Client()) as conn:
        with pytest.raises(RequestError, match="no model chosen"):
            await conn.new_session(cwd=str(project.root), mcp_servers=[])


async def test_the_permission_step_asks_the_client_about_each_call(project: Project) -> None:
    project.script(
        [
            {"parts": [{"tool": "bash", "args": {"command": "echo allowed"}}]},
            {"parts": [{"tool": "bash", "args": {"command": "echo refused"}}]},
            {"text": "ok"},
        ],
        permissions={"mode": "ask"},
    )
    client = Client(answers=["allow_once", "deny"])
    async with agent(project, client) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run both")])

    asked = [(p.tool_call_id, p.title, p.kind) for p in client.permissions]
    assert asked == [
        ("call_1", "Run echo allowed", "execute"),
        ("call_2", "Run echo refused", "execute"),
    ]
    ends = {u.tool_call_id: u for u in client.of("tool_call_update") if u.status != "in_progress"}
    assert ends["call_1"].status == "completed"
    assert "allowed" in ends["call_1"].content[0].content.text
    assert ends["call_2"].status == "failed"
    assert "denied" in ends["call_2"].content[0].content.text


async def test_an_edit_permission_carries_the_diff_as_tool_call_content(project: Project) -> None:
    (project.root / "app.py").write_text("x = 1\n")
    edit = {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    listing = {"tool": "bash", "args": {"command": "ls"}}
    project.script(
        [{"parts": [{"tool": "edit", "args": edit}, listing]}, {"text": "ok"}],
        permissions={"mode": "ask"},
    )
    client = Client(answers=["allow_session", "deny"])
    async with agent(project, client) as conn:
        session = await conn.new_session(cwd=str(project.root), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("edit it")])

    edit_call, bash_call = client.permissions
    [diff] = edit_call.content
    assert (diff.type, diff.path) == ("diff", str(project.root / "app.py"))
    assert (diff.old_text, diff.new_text) == ("x = 1\n", "x = 2\n")
    [shown] = bash_call.content
    assert shown.content.text == f"$ ls\nin {project.root}\nruns: ls"
    assert (project.root / "app.py").read_text() == "x = 2\n"


def test_a_client_hanging_up_right_after_session_new_leaves_no_pending_task(
    project: Project,
) -> None:
    project.script([{"text": "never asked"}])
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(project.root), "mcpServers": []},
        },
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(
        project.command("acp"),
        input=stdin,
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Task was destroyed" not in done.stderr and "never awaited" not in done.stderr
