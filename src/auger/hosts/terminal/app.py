"""`auger` with no `-p`: the interactive terminal.

The screen is inline (no alternate screen), so the terminal's scrollback keeps the whole
conversation: finished lines are printed above the input area, and only what is still streaming
is drawn live, just above the input. The screen runs on the main thread; the Runtime runs on an
event loop of its own in a worker thread, and its records cross over through a `Pipe`. The
screen only renders records and calls the Runtime's public API; `layout`, `keys` and `questions`
build the screen's parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.history import ThreadedHistory

from auger.config import auger_home
from auger.hosts.terminal import modes
from auger.hosts.terminal.boot import CLEAR_SCROLLBACK, banner
from auger.hosts.terminal.complete import InputCompleter
from auger.hosts.terminal.history import SafeHistory
from auger.hosts.terminal.host import Pipe, Progress, TerminalHost, Worker
from auger.hosts.terminal.layout import Windows, application
from auger.hosts.terminal.osc52 import copy_sequence
from auger.hosts.terminal.pipe import END, Failed, Ready, Say
from auger.hosts.terminal.questions import Questions
from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.sessions import Sessions, resume_hint, saved_sessions
from auger.hosts.terminal.status import Status
from auger.hosts.terminal.text import Theme
from auger.records import UserText

if TYPE_CHECKING:
    from auger.llm import UserPart
    from auger.runtime import Runtime

FRAME = 1 / 30
"""Seconds between two renders of a burst of records."""
QUIT_WINDOW = 2.0
"""Seconds within which a second Ctrl-C quits."""


class Terminal:
    """One interactive session: the screen, the input, and the Runtime they drive."""

    def __init__(self, opts: Any, *, sessions: Sessions | None = None) -> None:
        self.opts = opts
        self.sessions = sessions
        self.home = auger_home(os.environ)
        self.cwd = Path(os.getcwd())
        self.renderer = Renderer(Theme(color=not os.environ.get("NO_COLOR")))
        self.status = Status()
        self.runtime: Runtime | None = None
        self.worker: Worker | None = None
        self.busy = True
        self.since = time.monotonic()
        self.closing = False
        self.queue: deque[str] = deque(p for p in [" ".join(opts.prompt).strip()] if p)
        self.questions = Questions(self)
        self.pastes: dict[str, str] = {}
        self.progress: str | None = None
        """What the spinner says: the label of the latest slow work still under way."""
        self._working: dict[int, str] = {}
        self.code = 0
        self._hint, self._hint_until = "", 0.0
        self._last_ctrl_c = 0.0
        self._shown_session: str | None = None
        self._clearing = False  # `/clear` was sent
        self._frame_due = False
        self._ticking = False
        self._closed = False
        self._idle = asyncio.Event()
        with contextlib.suppress(OSError):  # a read-only home: history in memory, said once
            self.home.mkdir(parents=True, exist_ok=True)
        history = SafeHistory(self.home / "history", lambda text: self.say(text, "warning"))
        self.input = Buffer(
            multiline=True,
            history=ThreadedHistory(history),
            completer=InputCompleter(self._commands, self.cwd),
            complete_while_typing=True,
        )
        self.answer = Buffer(multiline=False)
        self.windows = Windows(self)
        self.app = application(self, self.windows)

    def _commands(self) -> dict[str, Any]:
        return dict(self.runtime.commands) if self.runtime is not None else {}

    # -- input ---------------------------------------------------------------------------

    def submit(self) -> None:
        """Send what was typed (pastes in full), or queue it while the Runtime is busy."""
        text = self.input.text
        if not text.strip():
            return
        for token, pasted in self.pastes.items():
            text = text.replace(token, pasted)
        self.pastes.clear()
        self.input.document = Document(text)
        self.input.reset(append_to_history=True)
        if self.busy or self.runtime is None:
            self.queue.append(text)
            self.app.invalidate()
            return
        self._start(text)

    def ctrl_c(self) -> None:
        """Clear the input; with none, cancel the running turn; when idle, a second Ctrl-C
        soon after quits (as in Claude Code and Codex)."""
        if self.closing:
            self.app.exit(result=self.code)
            return
        if self.input.text:
            self.input.reset()
            self.pastes.clear()
            return
        if self.busy and self.runtime is not None:
            self.runtime.cancel()
            self._last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self.quit()
            return
        self._last_ctrl_c = now
        self.say_hint("ctrl-c again to quit")

    def say_hint(self, text: str) -> None:
        """Show `text` in the status line for a moment."""
        self._hint, self._hint_until = text, time.monotonic() + QUIT_WINDOW
        self.app.invalidate()
        asyncio.get_running_loop().call_later(QUIT_WINDOW, self.app.invalidate)

    def hint(self) -> str | None:
        """The hint of `say_hint` while it is shown."""
        return self._hint if time.monotonic() < self._hint_until else None

    def say(self, text: str, level: str | None = None) -> None:
        """Show a line of the screen's own (`level` `None`: a quiet note); from either loop."""
        self.pipe.put(Say(text, level))

    # -- the Runtime ---------------------------------------------------------------------

    def _start(self, text: str) -> None:
        modes.typed(self, text)
        self._clearing = text.strip() == "/clear"
        if not text.startswith("!"):
            self.renderer.user(text)
        self.request_frame()
        self.work(self._stream(text))

    def work(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run `coro` on the Runtime's loop, busy until it is over."""
        assert self.worker is not None
        self.busy = True
        self._idle.clear()
        self.since = time.monotonic()
        self._tick()
        self.worker.run(self._then_end(coro))

    async def _then_end(self, coro: Awaitable[None]) -> None:
        try:
            await coro
        except Exception as exc:  # shown, never lost: the screen must go on
            self.say(f"internal error: {type(exc).__name__}: {exc}", "error")
        finally:
            self.pipe.put(END)

    async def _stream(self, text: str) -> None:
        from auger.commands import MentionError, attach

        assert self.runtime is not None
        put = self.pipe.put
        attached: tuple[UserPart, ...] = ()
        if not text.startswith(("!", "/")):
            try:  # each `@path` brings the file (an image as an image) into the message
                attached = attach(text, self.cwd).parts
            except MentionError as exc:
                put(Say(str(exc), "error"))
                return
        async for record in self.runtime.submit(text, attached):
            put(record)

    async def _boot(self) -> None:
        from auger.config import ConfigError
        from auger.hosts.terminal.boot import build_runtime

        try:
            runtime = await build_runtime(self.opts, self.host)
        except ConfigError as exc:
            self.pipe.put(Failed(str(exc)))
        except Exception as exc:  # shown, then the session ends
            self.pipe.put(Failed(f"cannot start: {type(exc).__name__}: {exc}"))
        else:
            self.pipe.put(Ready(runtime))

    def _on_items(self, items: list[Any]) -> None:
        renderer = self.renderer
        for item in items:
            kind = getattr(item, "type", None)
            if kind == "clipboard_copy":
                self.app.output.write_raw(copy_sequence(item.text))
            elif kind is not None:
                if kind == "token_usage_done":
                    self.status.feed(item)
                renderer.feed(item)
            elif item is END:
                self._next()
            elif isinstance(item, Say):
                if item.level is None:
                    renderer.note(item.text)
                else:
                    renderer.notice(item.text, item.level)
            elif isinstance(item, Progress):
                if item.label is None:
                    self._working.pop(item.key, None)
                else:
                    self._working[item.key] = item.label
                self.progress = next(reversed(self._working.values()), None)
            elif isinstance(item, Ready):
                self.runtime = item.runtime
                self.status.mode = modes.configured(item.runtime)
                item.runtime.listen(self.pipe.put)  # notices from background work, at once
                self._next()
                if getattr(self.opts, "resume", None) == "":  # `auger -r`: pick one
                    self.questions.pick_session()
            elif isinstance(item, Failed):
                renderer.notice(item.message, "error")
                self.code = 2
                self._next()
                self.quit()
        self.request_frame()

    def _show_transcript(self) -> None:
        """A session resumed (at start, `/resume`, the picker) shows its conversation and says
        so, before the prompt; a fork or a new session shows nothing again."""
        runtime = self.runtime
        if runtime is None or runtime.session_id == self._shown_session:
            return
        before, self._shown_session = self._shown_session, runtime.session_id
        records = list(runtime.history())
        if not records or (before and runtime.session.header.parent_session_id == before):
            return
        for record in records:  # drawn as they were when they streamed
            if isinstance(record, UserText):
                self.renderer.user(record.text)
            else:
                self.renderer.feed(record)
        self.renderer.end_stream()
        self.renderer.note(f"↺ resumed session {runtime.session_id}")

    def _next(self) -> None:
        """Work on the Runtime's loop is over: run what was queued meanwhile."""
        self.busy = False
        self.renderer.end_stream()
        if self._clearing and self.runtime is not None and not self.runtime.messages:
            self._clearing = False  # a new session: the old conversation leaves the screen
            self.app.renderer.clear()
            self.app.output.write_raw(CLEAR_SCROLLBACK)
        self._show_transcript()
        self._idle.set()
        if self.runtime is not None and self.runtime.quit_requested:
            self.quit()
        elif self.queue and self.runtime is not None and not self.closing:
            self._start(self.queue.popleft())

    # -- the screen ----------------------------------------------------------------------

    def _tick(self) -> None:
        if self._ticking:
            return
        self._ticking = True

        def tick() -> None:
            self.app.invalidate()
            if self.busy or self.progress is not None:
                asyncio.get_running_loop().call_later(0.1, tick)
            else:
                self._ticking = False

        asyncio.get_running_loop().call_later(0.1, tick)

    def request_frame(self) -> None:
        """Render what the renderer holds within a frame."""
        if not self._frame_due:
            self._frame_due = True
            asyncio.get_running_loop().call_later(FRAME, self._frame)

    def _frame(self) -> Awaitable[None] | None:
        self._frame_due = False
        self.renderer.cells = max(self.app.output.get_size().columns, 20)
        text = self.renderer.take()
        self.app.invalidate()
        if not text:
            return None
        output = self.app.output

        def write() -> None:
            output.write_raw(text)
            output.flush()

        return run_in_terminal(write)

    def quit(self) -> None:
        """End the session: decline the questions, cancel the turn, close the Runtime."""
        if not self.closing:
            self.closing = True
            self.app.create_background_task(self._close())

    async def _close(self) -> None:
        try:
            while self.questions.choices:
                self.questions.answer(None)
            if self.busy and self.runtime is not None:
                self.runtime.cancel()
            await self._idle.wait()
            if self.runtime is not None:
                self.busy = True
                self._tick()
                await self._shutdown()
            flushed = self._frame()
            if flushed is not None:
                await flushed
        finally:
            future = self.app.future
            if self.app.is_running and future is not None and not future.done():
                self.app.exit(result=self.code)

    async def _shutdown(self) -> None:
        """`session_end(close)` and `session_shutdown`, awaited (once)."""
        if self._closed or self.runtime is None or self.worker is None:
            return
        self._closed = True
        try:
            await self.worker.run(self.runtime.close())
        except Exception as exc:  # the session is over either way
            self.renderer.notice(f"closing failed: {exc}", "error")

    async def run(self) -> int:
        """Run the session until the person quits; the exit code."""
        loop = asyncio.get_running_loop()
        self.pipe = Pipe(loop, self._on_items)
        self.host = TerminalHost(self.questions, loop, self.pipe, self.cwd)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.quit)

        def boot() -> None:
            self.worker = Worker()
            self.worker.run(self._boot())
            self._tick()

        # A first line of our own also keeps the screen's area off the terminal's top row, where
        # erasing it would clear the whole screen (which tmux, for one, pushes into scrollback).
        sys.stdout.write(self.renderer.theme.paint("grey", banner(self.cwd)) + "\n\n")
        sys.stdout.flush()
        try:
            code = await self.app.run_async(pre_run=lambda: _soon(loop, boot))
        finally:
            await self._shutdown()
            if self.worker is not None:
                self.worker.stop()
        sys.stdout.write(self.renderer.take() + resume_hint(self.runtime, self.renderer.theme))
        sys.stdout.flush()
        return code


def _soon(loop: asyncio.AbstractEventLoop, fn: Callable[[], None]) -> None:
    loop.call_soon(fn)


def run_terminal(opts: Any, *, sessions: Sessions | None = None) -> int:
    """`auger` with no `-p`: an interactive session in this terminal; the exit code."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write(
            "auger: the interactive terminal needs a terminal — run a prompt with auger -p PROMPT\n"
        )
        return 2
    return asyncio.run(Terminal(opts, sessions=sessions or saved_sessions()).run())
