"""The Runtime: the embeddable agent. `async for record in runtime.prompt(text)`."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import msgspec

from auger.bus import Bus
from auger.commands.runner import run_command, submit
from auger.compact import CompactionSettings, compact
from auger.compact import summarize as summarize_messages
from auger.config.credentials import with_credentials
from auger.config.errors import ConfigError
from auger.config.models import (
    build_provider,
    choose_model,
    provider_config,
    resolve_model,
    split_spec,
)
from auger.config.paths import auger_home
from auger.config.settings import load_settings
from auger.events import ModelSelect, SessionBeforeFork, SessionBeforeSwitch, SessionShutdown
from auger.extensions.context import HandlerContext
from auger.extensions.registrar import Registrations, disabled_in, load_extensions
from auger.extensions.source import Extension, Source, from_callable
from auger.host import Host, NullHost
from auger.llm.catalog import lookup, model_from_entry
from auger.llm.errors import RetryPolicy
from auger.llm.messages import Message, UserPart
from auger.llm.provider import Model, Provider
from auger.llm.records import Record
from auger.llm.usage import Usage
from auger.loop import Exchange, run_turn
from auger.records import Notify, SessionEnd, SessionStart, TurnEnd
from auger.session.context import last_model, totals
from auger.session.conversation import Conversation
from auger.session.entries import (
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
)
from auger.session.paths import new_session_path
from auger.session.store import SessionFile, SessionHeader
from auger.tools.base import Tool
from auger.tools.jobs import Jobs

BASE_PROMPT = (
    "You are auger, a coding agent working in the user's project. Use the tools to read, "
    "search, change and run things rather than guessing; keep going until the task is done "
    "or you need the user. Be concise: say what you did and what you found."
)


class Answer(msgspec.Struct, frozen=True):
    """What `ask()` returns: the final text, how the turn ended, and what it used."""

    text: str
    stop_reason: str
    usage: Usage

    @property
    def cost(self) -> float | None:
        """The turn's price in USD, or `None` when the model is not priced."""
        return self.usage.cost


_END = object()


class _Channel:
    """A one-reader queue on one event loop: cheaper per item than `asyncio.Queue`."""

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self) -> None:
        """Return once there is something to drain."""
        if not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter

    def drain(self) -> Iterator[Any]:
        """Take items until none are left (items put meanwhile are taken too)."""
        items = self._items
        while items:
            yield items.popleft()


def _bundled() -> tuple[list[Source], list[Source]]:
    """The bundled extensions: those loaded first, and those loaded after every other one
    (skills, templates and MCP, so they see the skill folders, commands and MCP servers others
    added)."""
    from auger.commands import agents_md, builtin, skills, templates, undo
    from auger.extensions import claude_hooks
    from auger.extensions.mcp import McpServers
    from auger.tools.builtin import extensions

    first = [
        *extensions(),
        ("commands", builtin.extension),
        ("checkpoints", undo.extension),
        ("agents_md", agents_md.extension),
        ("claude_hooks", claude_hooks.extension),
    ]
    last = [("templates", templates.extension), ("skills", skills.extension), ("mcp", McpServers())]
    return (
        [Source(name, lambda fn=fn: fn) for name, fn in first],
        [Source(name, lambda fn=fn: fn) for name, fn in last],
    )


def as_source(ext: Source | Extension | tuple[str, Extension]) -> Source:
    """A `Source` for anything `Runtime(extensions=…)` accepts."""
    if isinstance(ext, Source):
        return ext
    if isinstance(ext, tuple):
        return from_callable(ext[1], ext[0])
    return from_callable(ext)


class Runtime:
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
    ) -> None:
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        self.cwd = Path(cwd or os.getcwd()).resolve()
        self.home = Path(home) if home is not None else auger_home(self.env)
        self.settings: Mapping[str, Any] = (
            load_settings(self.home, self.cwd) if settings is None else settings
        )
        self.clock = clock
        self.host: Host = host or NullHost()
        self.max_steps = max_steps
        self.retry = retry or _retry_from(self.settings)
        self.reasoning = reasoning
        self.idle_before_turn_end = idle_before_turn_end
        self.compaction = CompactionSettings.from_settings(self.settings)
        self._key_warnings: list[str] = []
        # API keys: the environment first, then auth.json; used to reach providers only, so
        # a stored key never leaks into the environment of the commands tools run
        self._keys = with_credentials(self.env, self.home, self._key_warnings.append)
        self.jobs = Jobs(clock)
        self.bus = Bus(self.notify, ctx=HandlerContext(self))
        self.exchange = Exchange(self)
        self._pending: list[Record] = []
        self._sink: Callable[[Any], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancel_frozen = False
        self._started = False
        self._sync: _SyncDriver | None = None
        self._reloaded = False
        self._unobserved: list[Notify] = []
        self._observing_notices = False
        self.quit_requested = False
        self._allow = tools
        self.user_home = Path(self.env.get("HOME") or Path.home())
        self.disabled = frozenset(disable) | disabled_in(self.settings)
        save = save and "recorder" not in self.disabled
        restored = session is not None
        if session is not None and not save:
            session.persist = False
        self.conversation = Conversation(session or self._new_session(save))
        self._start_reason = "restore" if restored else "new"
        first, last = _bundled() if bundled else ([], [])
        self._sources = [*first, *map(as_source, extensions), *last]
        self._stamps = self._file_stamps()
        self.registrations = Registrations()
        registrations, failures = load_extensions(self, self._sources, self._base())
        for warning in self._key_warnings:
            self.notify(warning, "warning")
        for failure in failures:
            self.notify(failure, "error")
        self._install(registrations, strict=True)
        self.model, self.provider = self._choose(model, provider)
        self.usage_total = self._tally()

    # -- set-up ---------------------------------------------------------------------------

    def _new_session(self, save: bool) -> SessionFile:
        session_id = os.urandom(6).hex()
        header = SessionHeader(id=session_id, cwd=str(self.cwd))
        path = new_session_path(self.home, self.cwd, session_id)
        return SessionFile.create(path, header, persist=save)

    def _choose(
        self, model: str | Model | None, provider: Provider | None
    ) -> tuple[Model, Provider]:
        """The model asked for; else a restored session's, when its provider can still be
        reached; else the configured one."""
        saved = None if model or provider else last_model(self.conversation.session.branch())
        if saved is not None:
            spec = "/".join(saved)
            try:
                return self._resolve(spec, None)
            except ConfigError as exc:
                self.notify(f"the session's model {spec} is not available ({exc})", "warning")
        return self._resolve(model, provider)

    def _tally(self) -> Usage:
        """What the current branch has used so far."""
        return self.model.no_usage + totals(self.conversation.session.branch()).usage

    def _resolve(
        self, model: str | Model | None, provider: Provider | None
    ) -> tuple[Model, Provider]:
        if isinstance(model, Model):
            return model, provider or self._provider_for(model.provider)
        if provider is not None:
            name = (model or "").partition("/")[2] or model or "default"
            return lookup(provider.name, name, "scripted"), provider
        spec = choose_model(model, self._keys, self.settings)
        provider_name, name = split_spec(spec)
        added = self.registrations.providers.get(provider_name)
        if added is not None:
            entry = added.models.get(name, {})
            return model_from_entry(provider_name, name, "extension", entry), added.factory()
        config = provider_config(provider_name, self._keys, self.settings)
        return resolve_model(spec, config), build_provider(config)

    def _provider_for(self, name: str) -> Provider:
        added = self.registrations.providers.get(name)
        if added is not None:
            return added.factory()
        return build_provider(provider_config(name, self._keys, self.settings))

    def _base(self) -> Registrations:
        base = Registrations()
        base.prompts.update(
            base=BASE_PROMPT,
            tools=self._tool_guidance,
            date=lambda: f"Today's date is {date.today().isoformat()}.",
            cwd=lambda: f"The current working directory is {self.cwd}.",
        )
        return base

    def _install(self, registrations: Registrations, strict: bool = False) -> None:
        if self._allow is not None:
            # MCP tools (`server__tool`) appear once their server has started
            unknown = sorted(
                n for n in set(self._allow) - set(registrations.tools) if "__" not in n
            )
            if unknown:
                known = ", ".join(sorted(registrations.tools)) or "none"
                message = f"--tools names unknown tools: {', '.join(unknown)} (the tools: {known})"
                if strict:  # at construction: a usage error
                    raise ConfigError(message)
                self.notify(message, "warning")
        self.registrations = registrations
        self.bus.replace_all(registrations.handlers)

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the model may call now (an extension may add some while running)."""
        tools = self.registrations.tools
        if self._allow is None:
            return tools
        return {k: v for k, v in tools.items() if k in self._allow}

    def _file_stamps(self) -> dict[Path, float | None]:
        return {s.path: s.stamp() for s in self._sources if s.path is not None}

    async def reload(self) -> bool:
        """Re-import every extension and swap all registrations at once.

        If any extension fails, nothing changes and the failures are reported. On success the
        next prompt opens with `session_end(reload)` then `session_start(reload)`; history,
        model, usage and session id are kept.
        """
        self._stamps = self._file_stamps()
        registrations, failures = load_extensions(self, self._sources, self._base())
        if failures:
            for failure in failures:
                self.notify(f"reload failed, nothing changed: {failure}", "error")
            return False
        self._install(registrations)
        self._reloaded = True
        return True

    async def reload_if_changed(self) -> None:
        """Reload when an extension file changed since it was loaded (a request boundary)."""
        if self._stamps and self._file_stamps() != self._stamps:
            await self.reload()

    def _tool_guidance(self) -> str:
        if not self.tools:
            return "No tools are available in this session."
        return "Tools available: " + ", ".join(self.tools) + "."

    def render_system_prompt(self) -> str:
        """The system prompt, assembled now from its named sections."""
        parts = []
        for section in self.registrations.prompts.values():
            text = section() if callable(section) else section
            if text:
                parts.append(text.strip())
        return "\n\n".join(parts)

    # -- the stream -----------------------------------------------------------------------

    def notify(self, message: str, level: str = "info") -> None:
        """Tell the host, and put a `notify` record on the stream (queued when idle).

        `notify` handlers see it at the next await point of the running work (never a notice
        that a `notify` handler itself raised, so a failing handler cannot loop).
        """
        self.host.notify(message, level)
        record = Notify(message, level)
        self.emit(record)
        if not self._observing_notices and self.bus.has("notify"):
            self._unobserved.append(record)

    async def observe_notices(self) -> None:
        """Deliver the notices raised since the last await point to `notify` handlers."""
        self._observing_notices = True
        try:
            while self._unobserved:
                await self.bus.observe(self._unobserved.pop(0))
        finally:
            self._observing_notices = False

    def emit(self, record: Record) -> None:
        """Send a record to the stream of the running prompt (or the next one)."""
        if self._sink is not None:
            self._sink(record)
        else:
            self._pending.append(record)

    async def publish(self, record: Record) -> None:
        """Stream `record`, then deliver it (and any notice raised meanwhile) to handlers."""
        self.emit(record)
        await self.bus.observe(record)
        if self._unobserved:
            await self.observe_notices()

    @property
    def messages(self) -> list[Message]:
        """The messages the model is sent next (the session's context)."""
        return self.conversation.messages

    @property
    def session_id(self) -> str:
        """The current session's id."""
        return self.conversation.id

    @property
    def transcript_path(self) -> Path | None:
        """The current session's file, once it exists."""
        return self.conversation.path

    def append(self, message: Message) -> None:
        """Add a message to the conversation (and the session file)."""
        self.conversation.append(message)

    def account(self, usage: Usage) -> None:
        """Add one response's usage to the session's tally."""
        self.usage_total = self.usage_total + usage

    def prompt(self, text: str, attachments: Sequence[UserPart] = ()) -> AsyncIterator[Record]:
        """Run one turn and stream its records; the last one is always `turn_end`.

        `attachments` (file text, images) follow `text` in the user's message."""
        parts = tuple(attachments)
        return self._stream(lambda: run_turn(self, text, parts))

    def run_command(self, name: str, args: str = "") -> AsyncIterator[Record]:
        """Run `/name args` and stream its records, like `prompt`.

        A command that runs no turn of its own still ends its stream with a `turn_end`.
        """
        return self._stream(lambda: run_command(self, name.lstrip("/"), args), check_reload=False)

    def submit(self, text: str) -> AsyncIterator[Record]:
        """What a person typed: `input` handlers may replace or swallow it; then `!cmd` runs
        a shell command, `/name args` a command, anything else a prompt."""
        return self._stream(lambda: submit(self, text))

    async def set_model(self, spec: str | Model, variant: str | None = None) -> None:
        """Switch the model (`provider/name`); fires `model_select`."""
        model, provider = self._resolve(spec, None)
        old = self.provider
        self.model, self.provider = model, provider
        if old is not provider:
            await old.aclose()
        self.conversation.append_entry(ModelChangeEntry(model.provider, model.name))
        await self.bus.emit("model_select", ModelSelect(model.id, variant))

    async def compact(self, instruction: str | None = None) -> bool:
        """Summarise the older part of the conversation now (`/compact`)."""
        return await compact(self, instruction, automatic=False) is not None

    # -- sessions -------------------------------------------------------------------------

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id` (default: the leaf).

        `session_before_fork` may cancel it (`None` is returned). The new session records
        this one as its parent.
        """
        session = self.conversation.session
        at = entry_id or session.leaf_id
        out = await self.bus.emit("session_before_fork", SessionBeforeFork(self.session_id, at))
        if out.stopped:
            self.notify("fork cancelled by an extension", "warning")
            return None
        new_id = os.urandom(6).hex()
        forked = session.fork(at, new_session_path(self.home, self.cwd, new_id))
        self._enter(forked, "new")
        return forked.path

    async def new(self) -> bool:
        """Continue in a fresh, empty session (`session_before_switch` may cancel it)."""
        return await self._switch_to(self._new_session(self.conversation.session.persist), "new")

    async def switch(self, path: str | Path) -> bool:
        """Continue in the saved session at `path` (`session_before_switch` may cancel it)."""
        return await self._switch_to(SessionFile.open(path), "restore")

    async def _switch_to(self, session: SessionFile, reason: str) -> bool:
        current = self.conversation.session
        out = await self.bus.emit(
            "session_before_switch", SessionBeforeSwitch(str(current.path), str(session.path))
        )
        if out.stopped:
            self.notify("session switch cancelled by an extension", "warning")
            session.close()
            return False
        self._enter(session, reason)
        return True

    def _enter(self, session: SessionFile, reason: str) -> None:
        self.conversation.session.close()
        self.conversation = Conversation(session)
        self._start_reason, self._started = reason, False
        for warning in session.warnings:
            self.notify(warning, "warning")
        self.usage_total = self._tally()

    async def navigate(self, entry_id: str | None, summarize: bool = False) -> None:
        """Move to another point of this session's tree; the next message continues there.

        With `summarize`, the branch being left is summarised by the model into a
        `branch_summary` entry, so the new branch still knows what was tried.
        """
        session = self.conversation.session
        summary = None
        if summarize:
            target = {e.id for e in session.branch(entry_id)} if entry_id else set()
            left = [
                e.message
                for e in session.branch()
                if e.id not in target and isinstance(e, MessageEntry)
            ]
            if left:
                summary, usage = await summarize_messages(self, left, None, None)
                self.account(usage)
        session.set_leaf(entry_id, summary or None)
        self.conversation.rebuild()

    def label(self, entry_id: str, label: str | None) -> None:
        """Put a label on an entry of the tree (`None` clears it)."""
        self.conversation.append_entry(LabelEntry(entry_id, label))

    def set_name(self, name: str) -> None:
        """Name the session."""
        self.conversation.append_entry(SessionInfoEntry(name))

    async def _stream(
        self, work: Callable[[], Awaitable[None]], check_reload: bool = True
    ) -> AsyncIterator[Record]:
        if self._task is not None:
            raise RuntimeError("a prompt is already running on this Runtime")
        channel = _Channel()
        self._loop = asyncio.get_running_loop()
        self._cancel_frozen = False
        self._sink = channel.put
        self._task = asyncio.create_task(self._run(work, channel, check_reload))
        try:
            while True:
                await channel.wait()
                for item in channel.drain():
                    if item is _END:
                        return
                    yield item
        finally:
            task, self._task = self._task, None
            if task is not None and not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            self._sink = None

    async def _run(
        self, work: Callable[[], Awaitable[None]], channel: _Channel, check_reload: bool
    ) -> None:
        try:
            root = str(self.cwd)
            if check_reload:  # a prompt sees extension files changed since the last one
                await self.reload_if_changed()
            if self._reloaded:
                self._reloaded = False
                await self.publish(SessionEnd("reload", root))
                await self.publish(SessionStart(self.session_id, "reload", root))
            elif not self._started:
                await self.publish(SessionStart(self.session_id, self._start_reason, root))
            self._started = True
            pending, self._pending = self._pending, []
            for record in pending:
                channel.put(record)
            await self.observe_notices()
            await work()
        finally:
            channel.put(_END)

    def freeze_cancel(self) -> None:
        """From here on the turn is finishing: a cancel changes nothing."""
        self._cancel_frozen = True

    def cancel(self) -> None:
        """Cancel the running turn. Safe from another thread or a signal handler."""
        loop, task = self._loop, self._task
        if loop is None or task is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._cancel_now)

    def _cancel_now(self) -> None:
        if self._task is not None and not self._cancel_frozen:
            self.jobs.kill_all()
            self._task.cancel()

    async def ask(self, text: str) -> Answer:
        """Run one turn to completion and return its final text, stop reason and usage."""
        end: TurnEnd | None = None
        async for record in self.prompt(text):
            if isinstance(record, TurnEnd):
                end = record
        assert end is not None
        return Answer(end.text, end.stop_reason, end.usage)

    async def close(self) -> None:
        """End the session: `session_end(close)` and `session_shutdown` are awaited, then
        background jobs stop and connections are released."""
        root = str(self.cwd)
        await self.bus.emit("session_end", SessionEnd("close", root))
        await self.bus.emit("session_shutdown", SessionShutdown(root))
        await self.jobs.aclose()
        await self.provider.aclose()

    # -- synchronous use ------------------------------------------------------------------

    def prompt_sync(self, text: str) -> Iterator[Record]:
        """`prompt()` for code without an event loop (runs one in a background thread)."""
        if self._sync is None:
            self._sync = _SyncDriver()
        return self._sync.iterate(self.prompt(text))

    def ask_sync(self, text: str) -> Answer:
        """`ask()` for code without an event loop."""
        if self._sync is None:
            self._sync = _SyncDriver()
        return self._sync.run(self.ask(text))

    def close_sync(self) -> None:
        """`close()` for code without an event loop."""
        if self._sync is None:
            asyncio.run(self.close())
            return
        self._sync.run(self.close())
        self._sync.stop()
        self._sync = None


def _retry_from(settings: Mapping[str, Any]) -> RetryPolicy:
    raw = settings.get("retry") or {}
    if not isinstance(raw, dict):
        return RetryPolicy()
    return RetryPolicy(
        attempts=int(raw.get("attempts", 3)),
        base_delay=float(raw.get("base_delay", 1.0)),
        max_delay=float(raw.get("max_delay", 60.0)),
    )


class _SyncDriver:
    """An event loop in a daemon thread, for the synchronous wrappers."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Any) -> Any:
        """Run a coroutine to its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def iterate(self, agen: AsyncIterator[Record]) -> Iterator[Record]:
        """Drive an async iterator, yielding its items here."""
        while True:
            try:
                yield self.run(agen.__anext__())
            except StopAsyncIteration:
                return

    def stop(self) -> None:
        """Stop the loop and its thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
