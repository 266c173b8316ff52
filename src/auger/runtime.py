"""The Runtime: the embeddable agent, a facade over the engine.

`async for record in runtime.prompt(text)`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from auger.bus import Bus
from auger.config.errors import ConfigError
from auger.config.paths import auger_home
from auger.config.project import project_root
from auger.config.schema import validate
from auger.config.settings import load as load_settings
from auger.engine import commands as engine_commands
from auger.engine import prompt
from auger.engine.compact import compact as compact_now
from auger.engine.context import Context
from auger.engine.models import ModelResolver
from auger.engine.registry import Command, Registry
from auger.engine.runner import Runner
from auger.engine.sessions import Sessions, new_session
from auger.engine.state import AgentState, Limits, Place
from auger.engine.stream import Stream
from auger.engine.turn import Answer, closing, run_turn
from auger.events import ModelSelect, SessionShutdown
from auger.extensions.bundled import as_source
from auger.extensions.bundled import bundled as bundled_sources
from auger.extensions.loaded import Loaded, unknown_tools
from auger.extensions.registrar import Surroundings, disabled_in
from auger.extensions.source import Extension, Source
from auger.host import Host, NullHost
from auger.llm.errors import RetryPolicy
from auger.llm.messages import Message, UserPart
from auger.llm.provider import Model, Provider
from auger.llm.records import Record
from auger.llm.server_tools import SEARCH_APIS, WEB_SEARCH, no_search_notice
from auger.llm.usage import Usage
from auger.records import NoticeLevel, SessionEnd, TurnEnd
from auger.session.context import totals
from auger.session.conversation import Conversation
from auger.session.entries import ModelChangeEntry
from auger.session.store import SessionFile
from auger.sync import Synchronous
from auger.tools.base import Tool
from auger.tools.sandbox import Sandbox


def environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """`env`, or the process environment when it is `None`: the Runtime's documented default."""
    return dict(os.environ if env is None else env)


class Runtime(Synchronous):
    """An agent you embed: give it a model, prompt it, read the records it streams.

    Everything that varies is injected: `env` (API keys, `AUGER_HOME`), `home` (`~/.auger`),
    `cwd`, `clock` (monotonic seconds), `host` (what it may ask), `settings`. The Runtime never
    prints and never reads the process environment unless `env` is left to its default.
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        provider: Provider | None = None,
        cwd: str | Path | None = None,
        home: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        host: Host | None = None,
        max_steps: int = 100,
        settings: Mapping[str, Any] | None = None,
        extensions: Sequence[Source | Extension | tuple[str, Extension]] = (),
        bundled: bool = True,
        disable: Sequence[str] = (),
        tools: Sequence[str] | None = None,
        retry: RetryPolicy | None = None,
        reasoning: str | None = None,
        session: SessionFile | None = None,
        save: bool = True,
        idle_before_turn_end: bool = False,
        reread: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        env = environment(env)
        cwd = Path(cwd or os.getcwd()).resolve()
        home = Path(home) if home is not None else auger_home(env)
        loaded = load_settings(home, cwd) if settings is None else None
        if settings is not None:  # given settings obey the same schema (hosts warned already)
            validate(settings, "settings")
        self.settings: Mapping[str, Any] = loaded.settings if loaded else settings or {}
        # how `/reload` reads the settings again: the host's way, else the files, when read here
        self._reread = reread or ((lambda: load_settings(home, cwd).settings) if loaded else None)
        self.host: Host = host or NullHost()
        place = Place(cwd, home, Path(env.get("HOME") or Path.home()), env, clock)
        limits = Limits.from_settings(
            self.settings,
            max_steps=max_steps,
            retry=retry,
            reasoning=reasoning,
            idle_first=idle_before_turn_end,
        )
        self._stream = Stream()
        key_warnings: list[str] = []
        # API keys: the environment first, then auth.json; used to reach providers only, so
        # a stored key never leaks into the environment of the commands tools run
        self._models = ModelResolver(env, home, self.settings, key_warnings.append)
        disabled = frozenset(disable) | disabled_in(self.settings)
        save = save and "recorder" not in disabled
        if session is not None and not save:
            session.persist = False
        conversation = Conversation(session or new_session(place, save), self._stream.notify)
        root = project_root(cwd, home)
        sandbox, sandbox_notice = Sandbox.from_settings(self.settings, root, env, home)
        first, last = bundled_sources() if bundled else ([], [])
        sources = [*first, *map(as_source, extensions), *last]
        around = Surroundings(
            cwd, home, place.user_home, self.settings, self.notify, self._stream.emit
        )
        self._extensions = Loaded(sources, disabled, around)
        state = AgentState(
            place,
            conversation,
            Registry(),
            limits,
            self.settings,
            allow=tools,
            boundary=self._reload_if_changed,
            sandbox=sandbox,
        )
        state.opening = "new" if session is None else "restore"
        state.models = self._models
        self._state = state
        self._bus = Bus(state.registry.handlers, self._stream.notify)
        self._stream.bus = self._bus
        self._ctx = Context(state, self._stream, self._bus, self.host, self)
        self._bus.ctx = self._ctx
        self._runner = Runner(state, self._stream, self._reload_if_changed)
        self._sessions = Sessions(state, self._stream, self._bus)
        registry, failures = self._load()
        notices = [*key_warnings, *conversation.session.warnings]
        for warning in [*notices, *(loaded.notices(cwd) if loaded else ())]:
            self.notify(warning, "warning")
        if sandbox_notice:
            self.notify(sandbox_notice, "warning")
        for failure in failures:
            self.notify(failure, "error")
        self._install(registry, strict=True)
        chosen, notice = self._models.choose(model, provider, conversation.session, registry)
        if notice:
            self.notify(notice, "warning")
        state.use(*chosen)
        if limits.search and self.model.api not in SEARCH_APIS and WEB_SEARCH not in self.tools:
            self.notify(no_search_notice(self.model), "warning")
        state.ledger.total = self.model.no_usage + totals(conversation.session.branch()).usage

    # -- set-up ---------------------------------------------------------------------------

    def _load(self) -> tuple[Registry, list[str]]:
        return self._extensions.load(prompt.opening(lambda: self.tools, lambda: self.provider))

    def _install(self, registry: Registry, strict: bool = False) -> None:
        problem = unknown_tools(self._state.allow, registry)
        if problem and strict:  # at construction: a usage error
            raise ConfigError(problem)
        if problem:
            self.notify(problem, "warning")
        self._state.registry = registry
        self._bus.read(registry.handlers)

    # -- read-only views ------------------------------------------------------------------

    @property
    def model(self) -> Model:
        """The current model."""
        return self._state.model

    @property
    def provider(self) -> Provider:
        """The current model's provider."""
        return self._state.provider

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
        """The environment tools run commands with (never holding a stored credential)."""
        return self._state.place.env

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the model may call now (an extension may add some while running)."""
        return self._state.tools

    @property
    def commands(self) -> dict[str, Command]:
        """The registered `/commands`."""
        return dict(self._state.registry.commands)

    @property
    def messages(self) -> list[Message]:
        """The messages the model is sent next (the session's context)."""
        return self._state.conversation.messages

    @property
    def session(self) -> SessionFile:
        """The current session's tree of entries."""
        return self._state.conversation.session

    @property
    def session_id(self) -> str:
        """The current session's id."""
        return self._state.conversation.id

    @property
    def transcript_path(self) -> Path | None:
        """The current session's file, once it exists."""
        return self._state.conversation.path

    @property
    def usage_total(self) -> Usage:
        """What the current branch has used so far."""
        return self._state.ledger.total

    @property
    def quit_requested(self) -> bool:
        """Whether a command (`/quit`) asked the host to end the session."""
        return self._state.quit_requested

    def system_prompt(self) -> str:
        """The system prompt, assembled now from its named sections."""
        return self._state.registry.system_prompt()

    # -- the stream -----------------------------------------------------------------------

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """A notice for the user: a `notify` record on the stream (queued when idle)."""
        self._stream.notify(message, level)

    def listen(self, sink: Callable[[Record], None] | None) -> None:
        """Between prompts, hand records (a notice from a background task, say) to `sink` at
        once instead of queueing them for the next prompt; `None` queues them again. A host
        that stays open (the terminal, ACP, RPC) listens; `auger -p` does not."""
        self._stream.listen(sink)

    def prompt(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """Run one turn and stream its records; the last one is always `turn_end`.

        `attachments` (file text, images) follow `text` in the user's message."""
        parts = tuple(attachments)
        return self._runner.run(lambda: run_turn(self._state, self._stream, self._bus, text, parts))

    def run_command(self, name: str, args: str = "") -> AsyncIterator[Record]:
        """Run `/name args` and stream its records, like `prompt`.

        A command that runs no turn of its own still ends its stream with a `turn_end`.
        """
        name = name.lstrip("/")
        return self._runner.run(
            lambda: engine_commands.run_command(
                self._state, self._stream, self._bus, self._ctx, name, args
            ),
            check_reload=False,
        )

    def submit(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """What a person typed: `input` handlers may replace or swallow it; then `!cmd` runs
        a shell command, `/name args` a command, anything else a prompt (with `attachments`)."""
        parts = tuple(attachments)
        return self._runner.run(
            lambda: engine_commands.submit(
                self._state, self._stream, self._bus, self._ctx, text, parts
            )
        )

    # -- control --------------------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel the running turn. Safe from another thread or a signal handler."""
        self._runner.cancel()

    async def ask(self, text: str) -> Answer:
        """Run one turn to completion and return its final text, stop reason and usage."""
        end: TurnEnd | None = None
        async for record in self.prompt(text):
            if isinstance(record, TurnEnd):
                end = record
        assert end is not None
        return Answer(end.text, end.stop_reason, end.usage)

    async def set_model(self, spec: str | Model, variant: str | None = None) -> None:
        """Switch the model (`provider/name`); fires `model_select`."""
        model = await self._models.switch(self._state, spec)
        self._state.conversation.append_entry(ModelChangeEntry(model.provider, model.name))
        await self._bus.emit(ModelSelect(model.id, variant))

    async def compact(self, instruction: str | None = None) -> bool:
        """Summarise the older part of the conversation now (`/compact`)."""
        return await compact_now(self._state, self._stream, self._bus, instruction, automatic=False)

    async def refresh_credentials(self) -> None:
        """Read auth.json again (after `/login` or `/logout`): later model switches see the keys
        now stored, and the current provider is rebuilt with them when it can be (one given to
        the constructor, or whose key is gone, stays as it is)."""
        self._models.refresh()
        with contextlib.suppress(ConfigError):
            await self._models.switch(self._state, self.model)

    async def reload(self) -> bool:
        """Re-import every extension and swap all registrations at once.

        If any extension fails, nothing changes and the failures are reported. On success the
        next prompt opens with `session_end(reload)` then `session_start(reload)`; history,
        model, usage and session id are kept.
        """
        self.reread_settings()
        registry, failures = self._load()
        if failures:
            for failure in failures:
                self.notify(f"reload failed, nothing changed: {failure}", "error")
            return False
        self._install(registry)
        self._state.opening = "reload"
        return True

    def reread_settings(self) -> None:
        """Read the settings again (`/reload` does, a host's model picker may): providers and
        models added since are known from now on; unreadable ones change nothing."""
        if self._reread is None:
            return
        try:
            self.settings = self._state.settings = self._reread()
        except ConfigError as exc:
            self.notify(f"settings not read again: {exc}", "error")
            return
        self._models.use(self.settings)

    async def _reload_if_changed(self) -> None:
        """Reload when an extension file changed since it was loaded (a request boundary)."""
        if self._extensions.changed():
            await self.reload()

    # -- sessions -------------------------------------------------------------------------

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id` (default: the leaf).

        `session_before_fork` may cancel it (`None` is returned). The new session records
        this one as its parent.
        """
        return await self._sessions.fork(entry_id)

    async def new(self) -> bool:
        """Continue in a fresh, empty session (`session_before_switch` may cancel it)."""
        return await self._sessions.new()

    async def switch(self, path: str | Path) -> bool:
        """Continue in the saved session at `path` (`session_before_switch` may cancel it)."""
        return await self._sessions.switch(path)

    async def navigate(self, entry_id: str | None, summarize: bool = False) -> None:
        """Move to another point of this session's tree; the next message continues there.

        With `summarize`, the branch being left is summarised by the model into a
        `branch_summary` entry, so the new branch still knows what was tried.
        """
        await self._sessions.navigate(entry_id, summarize)

    def label(self, entry_id: str, label: str | None) -> None:
        """Put a label on an entry of the tree (`None` clears it)."""
        self._sessions.label(entry_id, label)

    def set_name(self, name: str) -> None:
        """Name the session."""
        self._sessions.set_name(name)

    async def close(self) -> None:
        """End the session: `session_end(close)` and `session_shutdown` are awaited, then
        background jobs stop and connections are released."""
        root = str(self.cwd)
        with self._runner.cancellable():  # `cancel()` (a Ctrl-C) cuts a stuck handler short
            await closing(self._state, self._stream, self._bus, SessionEnd("close", root))
            await closing(self._state, self._stream, self._bus, SessionShutdown(root))
        await self._state.jobs.aclose()
        self._state.sandbox.close()
        await self._state.provider.aclose()
