"""The Engine: one session's state, stream and bus, and the operations on them. The Runtime
is its facade; a command reaches these operations through `ctx.controls`, the Engine itself.

Extension files are read by the layer above; the Engine holds them as `Extensions`, and
applies a reload itself: between prompts, and at each request boundary of a turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from auger.bus import Bus
from auger.config.errors import ConfigError
from auger.engine import commands as engine_commands
from auger.engine import prompt
from auger.engine.compact import Compaction
from auger.engine.context import Context
from auger.engine.models import ModelResolver
from auger.engine.registry import Registry
from auger.engine.runner import Runner
from auger.engine.sessions import Sessions
from auger.engine.state import AgentState
from auger.engine.stream import Stream
from auger.engine.turn import closing, run_turn
from auger.events import ModelSelect, SessionShutdown
from auger.host import Host
from auger.llm.messages import Message, UserPart
from auger.llm.provider import Model, Provider
from auger.llm.records import Record
from auger.records import NoticeLevel, SessionEnd
from auger.session.entries import ModelChangeEntry


class Extensions(Protocol):
    """Where the registrations come from: loaded into a fresh registry, and watched."""

    def load(self, opening: Registry) -> tuple[Registry, list[str]]:
        """A registry over `opening`'s sections, and the failures."""
        ...

    def changed(self) -> bool:
        """Whether a file changed since the last load."""
        ...


Check = Callable[[Registry], str | None]
"""What a registry lacks that the session asked for (`--tools` naming unknown tools)."""


class Engine:
    """One session: the state its parts share, the stream, the bus, and what changes them."""

    def __init__(
        self,
        state: AgentState,
        stream: Stream,
        host: Host,
        models: ModelResolver,
        reread: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self.state = state
        self.stream = stream
        self.host = host
        self.models = models
        self._reread = reread
        self._extensions: Extensions | None = None
        self._check: Check = lambda registry: None
        state.models = models
        state.boundary = self.reload_if_changed
        self.bus = Bus(state.registry.handlers, stream.notify)
        stream.bus = self.bus
        self.ctx = Context(state, stream, self.bus, host, self)
        self.bus.ctx = self.ctx
        self._runner = Runner(state, stream)
        self._sessions = Sessions(state, stream, self.bus)

    def load(self, extensions: Extensions, check: Check) -> None:
        """Load `extensions` for the first time; what `check` finds is a `ConfigError`."""
        self._extensions, self._check = extensions, check
        registry, failures = self._load()
        for failure in failures:
            self.notify(failure, "error")
        problem = check(registry)
        if problem:
            raise ConfigError(problem)
        self._install(registry)

    def _load(self) -> tuple[Registry, list[str]]:
        assert self._extensions is not None, "no extensions loaded yet"
        state = self.state
        return self._extensions.load(prompt.opening(lambda: state.tools, lambda: state.provider))

    def _install(self, registry: Registry) -> None:
        self.state.registry = registry
        self.bus.read(registry.handlers)

    # -- what the session is now --------------------------------------------------------

    @property
    def model(self) -> Model:
        """The current model."""
        return self.state.model

    @property
    def provider(self) -> Provider:
        """The current model's provider."""
        return self.state.provider

    @property
    def session_id(self) -> str:
        """The current session's id."""
        return self.state.conversation.id

    @property
    def messages(self) -> list[Message]:
        """The messages the model is sent next."""
        return self.state.conversation.messages

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """A notice for the user: a `notify` record on the stream (queued when idle)."""
        self.stream.notify(message, level)

    def emit(self, record: Record) -> None:
        """A record for the stream."""
        self.stream.emit(record)

    # -- streams --------------------------------------------------------------------------

    def prompt(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """Run one turn and stream its records; the last one is always `turn_end`."""
        parts = tuple(attachments)
        return self._runner.run(lambda: run_turn(self.state, self.stream, self.bus, text, parts))

    def run_command(self, name: str, args: str = "") -> AsyncIterator[Record]:
        """Run `/name args` and stream its records."""
        return self._runner.run(
            lambda: engine_commands.run_command(
                self.state, self.stream, self.bus, self.ctx, name, args
            ),
            check_reload=False,
        )

    def submit(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """What a person typed: a shell command, a command or a prompt."""
        parts = tuple(attachments)
        return self._runner.run(
            lambda: engine_commands.submit(self.state, self.stream, self.bus, self.ctx, text, parts)
        )

    def cancel(self) -> None:
        """Cancel the running turn. Safe from another thread or a signal handler."""
        self._runner.cancel()

    # -- operations -----------------------------------------------------------------------

    async def set_model(self, spec: str | Model, variant: str | None = None) -> None:
        """Switch the model (`provider/name`); fires `model_select`."""
        model = await self.models.switch(self.state, spec)
        self.state.conversation.append_entry(ModelChangeEntry(model.provider, model.name))
        await self.bus.emit(ModelSelect(model.id, variant))

    async def compact(self, instruction: str | None = None) -> bool:
        """Summarise the older part of the conversation now."""
        system, tools = self.state.prompt()
        compaction = Compaction.of(self.state, self.stream, self.bus)
        return await compaction.run(system, tools, instruction, automatic=False)

    async def refresh_credentials(self) -> None:
        """Read the stored credentials again; the current provider is rebuilt when it can be."""
        self.models.refresh()
        with contextlib.suppress(ConfigError):
            await self.models.switch(self.state, self.model)

    async def reload(self) -> bool:
        """Re-import every extension and swap all registrations at once, or change nothing."""
        self.reread_settings()
        registry, failures = self._load()
        if failures:
            for failure in failures:
                self.notify(f"reload failed, nothing changed: {failure}", "error")
            return False
        problem = self._check(registry)
        if problem:
            self.notify(problem, "warning")
        self._install(registry)
        self.state.opening = "reload"
        return True

    async def reload_if_changed(self) -> None:
        """Reload when an extension file changed since it was loaded (a request boundary)."""
        if self._extensions is not None and self._extensions.changed():
            await self.reload()

    def reread_settings(self) -> None:
        """Read the settings again; unreadable ones change nothing."""
        if self._reread is None:
            return
        try:
            settings = self._reread()
        except ConfigError as exc:
            self.notify(f"settings not read again: {exc}", "error")
            return
        self.state.settings = settings
        self.models.use(settings)

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id` (default: the leaf)."""
        return await self._sessions.fork(entry_id)

    async def new(self) -> bool:
        """Continue in a fresh, empty session."""
        return await self._sessions.new()

    async def switch(self, path: str | Path) -> bool:
        """Continue in the saved session at `path`."""
        return await self._sessions.switch(path)

    async def navigate(self, entry_id: str | None, summarize: bool = False) -> None:
        """Move to another point of this session's tree."""
        await self._sessions.navigate(entry_id, summarize)

    def label(self, entry_id: str, label: str | None) -> None:
        """Put a label on an entry of the tree (`None` clears it)."""
        self._sessions.label(entry_id, label)

    def set_name(self, name: str) -> None:
        """Name the session."""
        self._sessions.set_name(name)

    async def close(self) -> None:
        """`session_end(close)` and `session_shutdown`, then jobs, sandbox and connections."""
        state, root = self.state, str(self.state.place.cwd)
        with self._runner.cancellable():  # `cancel()` (a Ctrl-C) cuts a stuck handler short
            await closing(state, self.stream, self.bus, SessionEnd("close", root))
            await closing(state, self.stream, self.bus, SessionShutdown(root))
        await state.jobs.aclose()
        state.sandbox.close()
        await state.provider.aclose()
