"""The Runtime: the embeddable agent, a facade over the engine.

`async for record in runtime.prompt(text)`.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from auger.config.paths import auger_home
from auger.config.project import project_root
from auger.config.schema import validate
from auger.config.settings import Loaded as Settings
from auger.config.settings import load as load_settings
from auger.engine.engine import Engine
from auger.engine.models import ModelResolver
from auger.engine.registry import Command, Registry
from auger.engine.sessions import new_session
from auger.engine.state import AgentState, Limits, Place
from auger.engine.stream import Stream
from auger.engine.turn import Answer
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
from auger.records import NoticeLevel, TurnEnd
from auger.session.context import totals
from auger.session.conversation import Conversation
from auger.session.history import history
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
    `cwd`, `clock` (monotonic seconds), `host` (what it may ask), `settings` (a mapping, held
    to the schema; `None` reads the files; `loader.build` passes those it read). The Runtime
    never prints and never reads the process environment unless `env` is left to its default.
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
        settings: Mapping[str, Any] | Settings | None = None,
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
        if isinstance(settings, Settings):  # read and checked by `loader.build`
            loaded = settings
        elif settings is None:  # the files; `/reload` reads them again, unless the host says
            loaded = load_settings(home, cwd)
            reread = reread or (lambda: load_settings(home, cwd).settings)
        else:  # given settings obey the same schema
            validate(settings, "settings")
            loaded = Settings(dict(settings))
        config = loaded.settings
        self.host: Host = host or NullHost()
        place = Place(cwd, home, Path(env.get("HOME") or Path.home()), env, clock)
        limits = Limits.from_settings(
            config,
            max_steps=max_steps,
            retry=retry,
            reasoning=reasoning,
            idle_first=idle_before_turn_end,
        )
        stream = Stream()
        key_warnings: list[str] = []
        # API keys: the environment first, then auth.json; used to reach providers only, so
        # a stored key never leaks into the environment of the commands tools run
        models = ModelResolver(env, home, config, key_warnings.append)
        disabled = frozenset(disable) | disabled_in(config)
        save = save and "recorder" not in disabled
        if session is not None and not save:
            session.persist = False
        conversation = Conversation(session or new_session(place, save), stream.notify)
        root = project_root(cwd, home)
        sandbox, sandbox_notice = Sandbox.from_settings(config, root, env, home)
        state = AgentState(
            place, conversation, Registry(), limits, config, allow=tools, sandbox=sandbox
        )
        state.opening = "new" if session is None else "restore"
        self._engine = engine = Engine(state, stream, self.host, models, reread)
        first, last = bundled_sources() if bundled else ([], [])
        sources = [*first, *map(as_source, extensions), *last]
        around = Surroundings(cwd, home, place.user_home, config, stream.notify, stream.emit)
        notices = [*key_warnings, *conversation.session.warnings]
        for warning in [*notices, *loaded.notices(cwd)]:
            self.notify(warning, "warning")
        if sandbox_notice:
            self.notify(sandbox_notice, "warning")
        engine.load(Loaded(sources, disabled, around), partial(unknown_tools, state.allow))
        chosen, notice = models.choose(model, provider, conversation.session, state.registry)
        if notice:
            self.notify(notice, "warning")
        state.use(*chosen)
        if limits.search and self.model.api not in SEARCH_APIS and WEB_SEARCH not in self.tools:
            self.notify(no_search_notice(self.model), "warning")
        state.ledger.total = self.model.no_usage + totals(conversation.session.branch()).usage

    # -- read-only views ------------------------------------------------------------------

    @property
    def settings(self) -> Mapping[str, Any]:
        """The merged settings in force (read again by `/reload`)."""
        return self._engine.state.settings

    @property
    def model(self) -> Model:
        """The current model."""
        return self._engine.model

    @property
    def provider(self) -> Provider:
        """The current model's provider."""
        return self._engine.provider

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        return self._engine.state.place.cwd

    @property
    def home(self) -> Path:
        """auger's home (`~/.auger`, or `AUGER_HOME`)."""
        return self._engine.state.place.home

    @property
    def env(self) -> Mapping[str, str]:
        """The environment tools run commands with (never holding a stored credential)."""
        return self._engine.state.place.env

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the model may call now (an extension may add some while running)."""
        return self._engine.state.tools

    @property
    def commands(self) -> dict[str, Command]:
        """The registered `/commands`."""
        return dict(self._engine.state.registry.commands)

    @property
    def messages(self) -> list[Message]:
        """The messages the model is sent next (the session's context)."""
        return self._engine.messages

    @property
    def session(self) -> SessionFile:
        """The current session's tree of entries."""
        return self._engine.state.conversation.session

    @property
    def session_id(self) -> str:
        """The current session's id."""
        return self._engine.session_id

    @property
    def transcript_path(self) -> Path | None:
        """The current session's file, once it exists."""
        return self._engine.state.conversation.path

    @property
    def usage_total(self) -> Usage:
        """What the current branch has used so far."""
        return self._engine.state.ledger.total

    @property
    def quit_requested(self) -> bool:
        """Whether a command (`/quit`) asked the host to end the session."""
        return self._engine.state.quit_requested

    def system_prompt(self) -> str:
        """The system prompt, assembled now from its named sections."""
        return self._engine.state.registry.system_prompt()

    # -- the stream -----------------------------------------------------------------------

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        """A notice for the user: a `notify` record on the stream (queued when idle)."""
        self._engine.notify(message, level)

    def listen(self, sink: Callable[[Record], None] | None) -> None:
        """Between prompts, hand records (a notice from a background task, say) to `sink` at
        once instead of queueing them for the next prompt; `None` queues them again. A host
        that stays open (the terminal, ACP, RPC) listens; `auger -p` does not."""
        self._engine.stream.listen(sink)

    def prompt(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """Run one turn and stream its records; the last one is always `turn_end`.

        `attachments` (file text, images) follow `text` in the user's message."""
        return self._engine.prompt(text, attachments)

    def run_command(self, name: str, args: str = "") -> AsyncIterator[Record]:
        """Run `/name args` and stream its records, like `prompt`.

        A command that runs no turn of its own still ends its stream with a `turn_end`.
        """
        return self._engine.run_command(name.lstrip("/"), args)

    def submit(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """What a person typed: `input` handlers may replace or swallow it; then `!cmd` runs
        a shell command, `/name args` a command, anything else a prompt (with `attachments`)."""
        return self._engine.submit(text, attachments)

    def history(self) -> Iterator[Record]:
        """The current branch as the records the live stream yields for it (a resumed
        session drawn by the same renderer; the context message stays hidden)."""
        return history(self._engine.state.conversation.session.branch())

    # -- control --------------------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel the running turn. Safe from another thread or a signal handler."""
        self._engine.cancel()

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
        await self._engine.set_model(spec, variant)

    async def compact(self, instruction: str | None = None) -> bool:
        """Summarise the older part of the conversation now (`/compact`)."""
        return await self._engine.compact(instruction)

    async def refresh_credentials(self) -> None:
        """Read auth.json again (after `/login` or `/logout`): later model switches see the keys
        now stored, and the current provider is rebuilt with them when it can be (one given to
        the constructor, or whose key is gone, stays as it is)."""
        await self._engine.refresh_credentials()

    async def reload(self) -> bool:
        """Re-import every extension and swap all registrations at once.

        If any extension fails, nothing changes and the failures are reported. On success the
        next prompt opens with `session_end(reload)` then `session_start(reload)`; history,
        model, usage and session id are kept.
        """
        return await self._engine.reload()

    def reread_settings(self) -> None:
        """Read the settings again (`/reload` does, a host's model picker may): providers and
        models added since are known from now on; unreadable ones change nothing."""
        self._engine.reread_settings()

    # -- sessions -------------------------------------------------------------------------

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id` (default: the leaf).

        `session_before_fork` may cancel it (`None` is returned). The new session records
        this one as its parent.
        """
        return await self._engine.fork(entry_id)

    async def new(self) -> bool:
        """Continue in a fresh, empty session (`session_before_switch` may cancel it)."""
        return await self._engine.new()

    async def switch(self, path: str | Path) -> bool:
        """Continue in the saved session at `path` (`session_before_switch` may cancel it)."""
        return await self._engine.switch(path)

    async def navigate(self, entry_id: str | None, summarize: bool = False) -> None:
        """Move to another point of this session's tree; the next message continues there.

        With `summarize`, the branch being left is summarised by the model into a
        `branch_summary` entry, so the new branch still knows what was tried.
        """
        await self._engine.navigate(entry_id, summarize)

    def label(self, entry_id: str, label: str | None) -> None:
        """Put a label on an entry of the tree (`None` clears it)."""
        self._engine.label(entry_id, label)

    def set_name(self, name: str) -> None:
        """Name the session."""
        self._engine.set_name(name)

    async def close(self) -> None:
        """End the session: `session_end(close)` and `session_shutdown` are awaited, then
        background jobs stop and connections are released."""
        await self._engine.close()
