"""What a handler and a command receive as `ctx`: one type, a window onto the session."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import msgspec

from auger.bus import Bus
from auger.engine.registry import Command
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.host import Capability, Host
from auger.llm.messages import Message
from auger.llm.provider import Model
from auger.llm.records import Record
from auger.llm.usage import Usage
from auger.records import (
    CommandOutput,
    Decision,
    NoticeLevel,
    PermissionAnswer,
    PermissionRequest,
)
from auger.session.entries import CustomEntry, CustomMessageEntry, Entry
from auger.session.store import SessionFile
from auger.tools.base import Tool
from auger.tools.sandbox import Sandbox


class Controls(Protocol):
    """The session operations a command may use (`ctx.controls`): the Engine's."""

    @property
    def model(self) -> Model:
        """The current model."""
        ...

    @property
    def session_id(self) -> str:
        """The current session's id."""
        ...

    @property
    def messages(self) -> list[Message]:
        """The messages the model is sent next."""
        ...

    async def set_model(self, spec: str | Model, variant: str | None = None) -> None:
        """Switch the model."""
        ...

    async def compact(self, instruction: str | None = None) -> bool:
        """Summarise the older part of the conversation now."""
        ...

    async def new(self) -> bool:
        """Continue in a fresh session."""
        ...

    async def switch(self, path: str | Path) -> bool:
        """Continue in a saved session."""
        ...

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id`."""
        ...

    async def navigate(self, entry_id: str | None, summarize: bool = False) -> None:
        """Move to another point of this session's tree."""
        ...

    async def reload(self) -> bool:
        """Re-import every extension."""
        ...

    async def refresh_credentials(self) -> None:
        """Read the stored API keys again."""
        ...

    def set_name(self, name: str) -> None:
        """Name the session."""
        ...

    def label(self, entry_id: str, label: str | None) -> None:
        """Label an entry of the tree."""
        ...

    def cancel(self) -> None:
        """Cancel the running turn."""
        ...


class Agent(msgspec.Struct, frozen=True):
    """Who a sub-agent is (SPEC §8): its id, agent name, nesting depth (1 for a child of the
    main agent) and the parent's call that started it."""

    id: str
    name: str
    depth: int
    call_id: str


class Context:
    """The session a handler or a command runs in: where, with which model, and what it may
    do. A command's context also has its `command` name, its `args`, `say` and `prompt`."""

    def __init__(
        self,
        state: AgentState,
        stream: Stream,
        bus: Bus,
        host: Host,
        controls: Controls,
        command: str = "",
        args: str = "",
        agent: Agent | None = None,
    ) -> None:
        self._state = state
        self._stream = stream
        self._bus = bus
        self._host = host
        self.controls = controls
        """The session's operations (switch the model, compact, fork, reload, …)."""
        self.command = command
        self.args = args
        self.turns = 0
        """How many turns this command ran with `prompt`."""
        self.agent = agent
        """The sub-agent this is, or `None` for the main agent."""

    def for_command(self, command: str, args: str) -> Context:
        """The context of one run of `/command args`."""
        return Context(
            self._state,
            self._stream,
            self._bus,
            self._host,
            self.controls,
            command,
            args,
            self.agent,
        )

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        return self._state.place.cwd

    @property
    def home(self) -> Path:
        """auger's home (`~/.auger`, or `AUGER_HOME`)."""
        return self._state.place.home

    @property
    def env(self) -> Mapping[str, str]:
        """The environment the session runs commands with."""
        return self._state.place.env

    @property
    def settings(self) -> Mapping[str, Any]:
        """The merged settings."""
        return self._state.settings

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self._state.conversation.id

    @property
    def model(self) -> str:
        """The current model as `provider/name`."""
        return self._state.model.id

    @property
    def usage(self) -> Usage:
        """What the session's branch has used so far."""
        return self._state.ledger.total

    @property
    def sandbox(self) -> Sandbox:
        """The session's sandbox (the permission step keeps it in step with the mode)."""
        return self._state.sandbox

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What the host can do (`ask`, `confirm`, `permission`, …): check before asking."""
        return self._host.capabilities

    @property
    def transcript_path(self) -> Path | None:
        """The session file, once it exists."""
        return self._state.conversation.path

    @property
    def session(self) -> SessionFile:
        """The session's tree of entries (read it; change it through the methods here)."""
        return self._state.conversation.session

    @property
    def messages(self) -> tuple[Message, ...]:
        """The stored conversation (a snapshot)."""
        return tuple(self._state.conversation.messages)

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the model may call now."""
        return dict(self._state.tools)

    @property
    def commands(self) -> dict[str, Command]:
        """The registered commands."""
        return dict(self._state.registry.commands)

    def branch(self) -> list[Entry]:
        """The session's entries from the root to the current leaf."""
        return self._state.conversation.session.branch()

    def append_custom(self, kind: str, data: Any = None) -> None:
        """Save extension state in the session (never sent to the model)."""
        self._state.conversation.append_entry(CustomEntry(kind, data))

    def append_message(self, kind: str, content: str, display: bool = True) -> None:
        """Add a message of your own to the conversation: the model is sent it."""
        self._state.conversation.append_entry(CustomMessageEntry(kind, content, display))

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """Tell the user something (a `notify` record)."""
        self._stream.notify(message, level)

    def emit(self, record: Record) -> None:
        """Send a record to the stream."""
        self._stream.emit(record)

    async def publish(self, record: Record) -> None:
        """Send a record to the stream and to its handlers."""
        await self._stream.publish(record)

    async def say(self, text: str) -> None:
        """Show `text` to whoever ran the command (a `command_output` record)."""
        await self._stream.publish(CommandOutput(self.command, text))

    async def prompt(self, text: str) -> None:
        """Run a turn with `text` as the prompt; its records stream as part of this command."""
        from auger.engine.turn import run_turn

        self.turns += 1
        await run_turn(self._state, self._stream, self._bus, text)

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The user's answer; `None` when the host cannot ask or they declined."""
        if "ask" not in self._host.capabilities:
            return None
        return await self._host.ask(question, options, secret)

    async def confirm(self, question: str) -> bool:
        """Whether the user agreed; `False` when the host cannot ask."""
        if "confirm" not in self._host.capabilities:
            return False
        return await self._host.confirm(question)

    def progress(self, label: str) -> contextlib.AbstractAsyncContextManager[None]:
        """`async with ctx.progress("starting x")`: the host shows `label` (the terminal's
        spinner) while slow work runs; nothing when it cannot (`progress` capability)."""
        if "progress" not in self._host.capabilities:
            return contextlib.nullcontext()
        return self._host.progress(label)

    async def request_permission(self, request: PermissionRequest) -> Decision:
        """The user's decision about a tool call; `deny` when the host cannot ask."""
        return (await self.permission_answer(request)).decision

    async def permission_answer(self, request: PermissionRequest) -> PermissionAnswer:
        """The user's whole answer: the decision and, for a deny, what the model should do
        instead or that the turn stops; `deny` when the host cannot ask."""
        if "permission" not in self._host.capabilities:
            return PermissionAnswer("deny")
        if self.agent is not None:  # the host names the child that asks
            request = msgspec.structs.replace(
                request,
                title=f"[{self.agent.name}] {request.title}",
                agent_id=self.agent.id,
                agent=self.agent.name,
            )
        return PermissionAnswer.of(await self._host.request_permission(request))

    def end_turn(self, text: str) -> None:
        """End the running turn once this round of tool calls is over, with `text` as its
        final text (no further model call)."""
        self._state.end_with = text

    def quit(self) -> None:
        """Ask the host to end the session once this turn is over (`/quit`)."""
        self._state.quit_requested = True

    def cancel(self) -> None:
        """Cancel the running turn."""
        self.controls.cancel()
