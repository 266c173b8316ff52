"""`auger` with no `-p`: the interactive terminal.

The screen is inline (no alternate screen), so the terminal's scrollback keeps the whole
conversation: finished lines are printed above the input area, and only what is still streaming
is drawn live, just above the input. The screen runs on the main thread; the Runtime runs on an
event loop of its own in a worker thread, and its records cross over through a `Pipe`. The
screen only renders records and calls the Runtime's public API.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, ThreadedHistory
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import ConditionalProcessor, PasswordProcessor
from prompt_toolkit.styles import Style

from auger.config.paths import auger_home
from auger.hosts.terminal.complete import InputCompleter
from auger.hosts.terminal.host import YES_NO, Pipe, Progress, TerminalHost
from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.status import Status
from auger.hosts.terminal.text import Theme, fit, width

if TYPE_CHECKING:
    from auger.runtime import Runtime

FRAME = 1 / 30
"""Seconds between two renders of a burst of records."""
QUIT_WINDOW = 2.0
"""Seconds within which a second Ctrl-C quits."""
PASTE_LINES = 10
PASTE_CHARS = 2000
"""A paste this long is shown in the input as a placeholder (and sent in full)."""
CHOICE_ROWS = 8
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
KEYS_HINT = "ctrl-l model · ctrl-s sessions · ctrl-o expand"

STYLE = {
    "prompt": "ansicyan bold",
    "rule": "ansibrightblack",
    "status": "ansibrightblack",
    "hint": "ansibrightblack italic",
    "spinner": "ansicyan",
    "question": "bold",
    "choice": "",
    "choice.selected": "ansicyan bold",
    "queued": "ansibrightblack",
    "live.reasoning": "ansibrightblack italic",
    "live.tool": "ansicyan",
}

# Shift-Enter as kitty (CSI u) and xterm (modifyOtherKeys) send it: a new line, like Alt-Enter.
ANSI_SEQUENCES["\x1b[13;2u"] = (Keys.Escape, Keys.ControlM)
ANSI_SEQUENCES["\x1b[27;2;13~"] = (Keys.Escape, Keys.ControlM)


@dataclass(frozen=True)
class Sessions:
    """Where the session picker finds saved sessions, and how it resumes one."""

    saved: Callable[[], Sequence[tuple[str, str, float]]]
    """`(id, title, age in seconds)` of each saved session, newest first."""
    resume: Callable[[Runtime, str], Awaitable[None]]
    """Resume session `id` on the Runtime (awaited on the Runtime's loop)."""


@dataclass
class Choice:
    """A question on screen: pick one of `options`, or type an answer when there are none."""

    question: str
    options: list[str] | None
    secret: bool
    done: Callable[[str | None], None]
    selected: int = 0
    filter: str = ""

    def matches(self) -> list[str]:
        """The options that contain what was typed."""
        typed = self.filter.lower()
        return [o for o in self.options or () if typed in o.lower()]


class _Say(NamedTuple):
    """A line of the screen's own; `level` `None` is a quiet note."""

    text: str
    level: str | None = None


class _Ready(NamedTuple):
    """The Runtime is built."""

    runtime: Runtime


class _Failed(NamedTuple):
    """The Runtime could not be built: why."""

    message: str


_END = object()
"""A stream, or other work on the Runtime's loop, is over."""


class _Worker:
    """The Runtime's event loop, in a thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="auger-runtime", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        """Run `coro` on the Runtime's loop; await the result on the caller's."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        """Stop the loop and its thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=2)


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
        self.worker: _Worker | None = None
        self.busy = True
        self.queue: deque[str] = deque(p for p in [" ".join(opts.prompt).strip()] if p)
        self.choices: deque[Choice] = deque()
        self.pastes: dict[str, str] = {}
        self.progress: str | None = None
        self.code = 0
        self._since = time.monotonic()
        self._hint = ""
        self._hint_until = 0.0
        self._last_ctrl_c = 0.0
        self._frame_due = False
        self._ticking = False
        self._closing = False
        self._closed = False
        self._idle = asyncio.Event()
        self.app = self._application()

    # -- layout --------------------------------------------------------------------------

    def _application(self) -> Application[int]:
        self.home.mkdir(parents=True, exist_ok=True)
        history = ThreadedHistory(FileHistory(str(self.home / "history")))
        self.input = Buffer(
            multiline=True,
            history=history,
            completer=InputCompleter(self._commands, self.cwd),
            complete_while_typing=True,
        )
        self.answer = Buffer(multiline=False)
        choosing = Condition(lambda: bool(self.choices) and self.choices[0].options is not None)
        typing = Condition(lambda: bool(self.choices) and self.choices[0].options is None)
        secret = Condition(lambda: bool(self.choices) and self.choices[0].secret)
        self._input_window = Window(
            BufferControl(self.input, key_bindings=self._input_keys()),
            height=self._input_height,
            wrap_lines=True,
            get_line_prefix=self._prefix,
            dont_extend_height=True,
        )
        self._choice_window = Window(
            FormattedTextControl(
                self._choice_text,
                focusable=True,
                key_bindings=self._choice_keys(),
                show_cursor=False,
            ),
            wrap_lines=True,
            dont_extend_height=True,
        )
        self._answer_window = Window(
            BufferControl(
                self.answer,
                input_processors=[ConditionalProcessor(PasswordProcessor(), secret)],
                key_bindings=self._answer_keys(),
            ),
            height=1,
            get_line_prefix=lambda line, wrap: [("class:prompt", "› ")],
        )

        def question() -> Window:
            return Window(
                FormattedTextControl(self._question_text), wrap_lines=True, dont_extend_height=True
            )

        working = Condition(lambda: self.busy or self.progress is not None)
        body = HSplit(
            [
                ConditionalContainer(
                    Window(
                        FormattedTextControl(self.renderer.live),
                        wrap_lines=True,
                        dont_extend_height=True,
                    ),
                    Condition(self.renderer.has_live),
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(self._spinner_text), height=1), working
                ),
                ConditionalContainer(
                    Window(FormattedTextControl(self._queue_text), dont_extend_height=True),
                    Condition(lambda: bool(self.queue) and self.runtime is not None),
                ),
                Window(char="─", height=1, style="class:rule"),
                ConditionalContainer(HSplit([question(), self._choice_window]), choosing),
                ConditionalContainer(HSplit([question(), self._answer_window]), typing),
                ConditionalContainer(
                    FloatContainer(
                        self._input_window,
                        floats=[
                            Float(
                                xcursor=True,
                                ycursor=True,
                                content=CompletionsMenu(max_height=8, scroll_offset=1),
                            )
                        ],
                    ),
                    Condition(lambda: not self.choices),
                ),
                Window(FormattedTextControl(self._status_text), height=1),
            ]
        )
        app: Application[int] = Application(
            layout=Layout(body, focused_element=self._input_window),
            key_bindings=self._global_keys(),
            style=Style.from_dict(STYLE),
            full_screen=False,
            erase_when_done=True,
            mouse_support=False,
            min_redraw_interval=0.03,
        )
        # A lone Esc cancels: wait only briefly for the rest of an Alt- or escape sequence.
        app.timeoutlen, app.ttimeoutlen = 0.2, 0.05
        return app

    def _input_height(self) -> Dimension:
        # Room below the cursor for the completion menu while it is open.
        return Dimension(min=9) if self.input.complete_state is not None else Dimension()

    def _prefix(self, line: int, wrap: int) -> StyleAndTextTuples:
        return [("class:prompt", "› " if line == 0 and wrap == 0 else "  ")]

    def _commands(self) -> dict[str, Any]:
        return dict(self.runtime.commands) if self.runtime is not None else {}

    def _question_text(self) -> StyleAndTextTuples:
        choice = self.choices[0]
        hint = " (y/n)" if choice.options == YES_NO else ""
        return [("class:question", f"? {choice.question}{hint}")]

    def _choice_text(self) -> StyleAndTextTuples:
        choice = self.choices[0]
        options = choice.matches()
        out: StyleAndTextTuples = []
        if choice.filter:
            out.append(("class:hint", f"  filter: {choice.filter}\n"))
        first = max(0, min(choice.selected - CHOICE_ROWS // 2, len(options) - CHOICE_ROWS))
        for i, option in enumerate(options[first : first + CHOICE_ROWS], first):
            if i == choice.selected:
                out.append(("class:choice.selected", f"❯ {option}\n"))
            else:
                out.append(("class:choice", f"  {option}\n"))
        if not options:
            out.append(("class:hint", "  (nothing matches)\n"))
        more = " · type to filter" if len(choice.options or ()) > CHOICE_ROWS else ""
        out.append(("class:hint", f"  ↑↓ move · enter choose · esc cancel{more}"))
        return out

    def _spinner_text(self) -> StyleAndTextTuples:
        now = time.monotonic()
        if self.runtime is None:
            label = "starting"
        elif self._closing:
            label = "closing"
        else:
            label = self.progress or "working"
        frame = SPINNER[int(now * 10) % len(SPINNER)]
        out: StyleAndTextTuples = [("class:spinner", f"{frame} "), ("", f"{label}… ")]
        if self.busy and self.runtime is not None and not self._closing:
            out.append(("class:hint", f"{now - self._since:.0f}s · esc to cancel"))
        return out

    def _queue_text(self) -> StyleAndTextTuples:
        cells = self.app.output.get_size().columns
        out: StyleAndTextTuples = []
        for i, text in enumerate(list(self.queue)[:3]):
            first = text.strip().split("\n")[0]
            out.append(("class:queued", ("\n" if i else "") + fit(f"⏵ queued: {first}", cells)))
        if len(self.queue) > 3:
            out.append(("class:queued", f"\n  … and {len(self.queue) - 3} more"))
        return out

    def _status_text(self) -> StyleAndTextTuples:
        runtime = self.runtime
        if runtime is not None:
            self.status.model = runtime.model.id
            self.status.window = runtime.model.context_window
            self.status.usage = runtime.usage_total
        left = self.status.line()
        right = self._hint if time.monotonic() < self._hint_until else KEYS_HINT
        cells = self.app.output.get_size().columns
        pad = cells - width(left) - width(right) - 1
        if pad < 2:
            return [("class:status", fit(left, cells - 1))]
        return [("class:status", left), ("", " " * pad), ("class:hint", right)]

    # -- keys ----------------------------------------------------------------------------

    def _global_keys(self) -> KeyBindings:
        kb = KeyBindings()
        free = Condition(lambda: not self.choices)

        @kb.add("c-c")
        @kb.add(Keys.SIGINT)
        def _(event: KeyPressEvent) -> None:
            self._ctrl_c()

        @kb.add("c-d", filter=free & Condition(lambda: not self.input.text))
        def _(event: KeyPressEvent) -> None:
            self._quit()

        @kb.add("escape", filter=free)
        def _(event: KeyPressEvent) -> None:
            if self.input.complete_state is not None:
                self.input.cancel_completion()
            elif self.busy and self.runtime is not None:
                self.runtime.cancel()

        @kb.add("c-o", filter=free)
        def _(event: KeyPressEvent) -> None:
            if not self.renderer.expand():
                self._say_hint("nothing to expand")
            self._request_frame()

        @kb.add("c-l", filter=free)
        def _(event: KeyPressEvent) -> None:
            self._pick_model()

        @kb.add("c-s", filter=free)
        def _(event: KeyPressEvent) -> None:
            self._pick_session()

        return kb

    def _input_keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("enter")
        def _(event: KeyPressEvent) -> None:
            state = self.input.complete_state
            if state is not None and state.current_completion is not None:
                self.input.complete_state = None
                return
            self._submit()

        @kb.add("escape", "enter")
        @kb.add("c-j")
        def _(event: KeyPressEvent) -> None:
            self.input.insert_text("\n")

        @kb.add(Keys.BracketedPaste)
        def _(event: KeyPressEvent) -> None:
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            lines = data.count("\n") + 1
            if lines < PASTE_LINES and len(data) < PASTE_CHARS:
                self.input.insert_text(data)
                return
            token = f"[paste #{len(self.pastes) + 1}: {lines} lines, {len(data)} chars]"
            self.pastes[token] = data
            self.input.insert_text(token)

        return kb

    def _choice_keys(self) -> KeyBindings:
        kb = KeyBindings()

        def move(by: int) -> None:
            choice = self.choices[0]
            count = len(choice.matches())
            if count:
                choice.selected = (choice.selected + by) % count

        kb.add("up")(lambda event: move(-1))
        kb.add("c-p")(lambda event: move(-1))
        kb.add("down")(lambda event: move(1))
        kb.add("c-n")(lambda event: move(1))
        kb.add("tab")(lambda event: move(1))

        @kb.add("enter")
        def _(event: KeyPressEvent) -> None:
            options = self.choices[0].matches()
            if options:
                self._answer(options[self.choices[0].selected])

        @kb.add("escape")
        @kb.add("c-c")
        def _(event: KeyPressEvent) -> None:
            self._answer(None)

        @kb.add("backspace")
        def _(event: KeyPressEvent) -> None:
            choice = self.choices[0]
            choice.filter, choice.selected = choice.filter[:-1], 0

        @kb.add(Keys.Any)
        def _(event: KeyPressEvent) -> None:
            choice = self.choices[0]
            if choice.options == YES_NO and event.data.lower() in ("y", "n"):
                self._answer("Yes" if event.data.lower() == "y" else "No")
            elif event.data.isprintable():
                choice.filter, choice.selected = choice.filter + event.data, 0

        return kb

    def _answer_keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("enter")
        def _(event: KeyPressEvent) -> None:
            self._answer(self.answer.text)

        @kb.add("escape")
        @kb.add("c-c")
        def _(event: KeyPressEvent) -> None:
            self._answer(None)

        return kb

    # -- input ---------------------------------------------------------------------------

    def _submit(self) -> None:
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

    def _ctrl_c(self) -> None:
        if self._closing:
            self.app.exit(result=self.code)
            return
        if self.input.text:
            self.input.reset()
            self.pastes.clear()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            self._quit()
            return
        self._last_ctrl_c = now
        hint = "esc cancels the turn · " if self.busy else ""
        self._say_hint(f"{hint}ctrl-c again to quit")

    def _say_hint(self, text: str) -> None:
        self._hint, self._hint_until = text, time.monotonic() + QUIT_WINDOW
        self.app.invalidate()
        asyncio.get_running_loop().call_later(QUIT_WINDOW, self.app.invalidate)

    # -- questions -----------------------------------------------------------------------

    def choose(
        self,
        question: str,
        options: list[str] | None,
        secret: bool,
        done: Callable[[str | None], None],
    ) -> None:
        """Ask inline (the host's `ask`); `done` gets the answer, or `None` when declined."""
        if self._closing:
            done(None)
            return
        self.choices.append(Choice(question, options, secret, done))
        if len(self.choices) == 1:
            self._focus()

    def _answer(self, value: str | None) -> None:
        choice = self.choices.popleft()
        if value is None:
            shown = "(no answer)"
        else:
            shown = "•" * min(len(value), 12) if choice.secret else value
        self.renderer.note(f"? {choice.question} › {shown}")
        self._request_frame()
        choice.done(value)
        self._focus()

    def _focus(self) -> None:
        if not self.choices:
            self.app.layout.focus(self._input_window)
        elif self.choices[0].options is None:
            self.answer.reset()
            self.app.layout.focus(self._answer_window)
        else:
            self.app.layout.focus(self._choice_window)
        self.app.invalidate()

    def _pick_model(self) -> None:
        runtime = self.runtime
        if runtime is None or self.busy:
            self._say_hint("the model can be changed once this turn is over")
            return
        from auger.hosts.terminal.boot import model_choices

        options = model_choices(runtime.settings, runtime.model.id)

        def chosen(spec: str | None) -> None:
            if spec and spec != runtime.model.id and not self.busy:
                self._work(self._set_model(runtime, spec))

        self.choose(f"Model (now {runtime.model.id})", options, False, chosen)

    async def _set_model(self, runtime: Runtime, spec: str) -> None:
        from auger.config.errors import ConfigError

        try:
            await runtime.set_model(spec)
        except ConfigError as exc:
            self.pipe.put(_Say(str(exc), "error"))
        else:
            self.pipe.put(_Say(f"model → {runtime.model.id}"))

    def _pick_session(self) -> None:
        runtime, sessions = self.runtime, self.sessions
        try:
            saved = sessions.saved() if sessions is not None else []
        except Exception as exc:  # another component's failure must not take the screen down
            self.renderer.notice(f"cannot list the saved sessions: {exc}", "error")
            self._request_frame()
            return
        if not saved or sessions is None:
            self.renderer.note("no saved sessions yet")
            self._request_frame()
            return
        if runtime is None or self.busy:
            self._say_hint("a session can be resumed once this turn is over")
            return
        labels = {f"{title} · {_age(age)} · {sid}": sid for sid, title, age in saved}

        def chosen(label: str | None) -> None:
            if label is not None and not self.busy:
                self._work(sessions.resume(runtime, labels[label]))

        self.choose("Resume a session", list(labels), False, chosen)

    # -- the Runtime ---------------------------------------------------------------------

    def _start(self, text: str) -> None:
        if not text.startswith("!"):
            self.renderer.user(text)
        self._request_frame()
        self._work(self._stream(text))

    def _work(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run `coro` on the Runtime's loop, busy until it is over."""
        assert self.worker is not None
        self.busy = True
        self._idle.clear()
        self._since = time.monotonic()
        self._tick()
        self.worker.run(self._then_end(coro))

    async def _then_end(self, coro: Awaitable[None]) -> None:
        try:
            await coro
        except Exception as exc:  # shown, never lost: the screen must go on
            self.pipe.put(_Say(f"internal error: {type(exc).__name__}: {exc}", "error"))
        finally:
            self.pipe.put(_END)

    async def _stream(self, text: str) -> None:
        assert self.runtime is not None
        put = self.pipe.put
        async for record in self.runtime.submit(text):
            put(record)

    async def _boot(self) -> None:
        from auger.config.errors import ConfigError
        from auger.hosts.terminal.boot import build_runtime

        try:
            runtime = await build_runtime(self.opts, self.host)
        except ConfigError as exc:
            self.pipe.put(_Failed(str(exc)))
        except Exception as exc:  # shown, then the session ends
            self.pipe.put(_Failed(f"cannot start: {type(exc).__name__}: {exc}"))
        else:
            self.pipe.put(_Ready(runtime))

    def _on_items(self, items: list[Any]) -> None:
        renderer = self.renderer
        for item in items:
            kind = getattr(item, "type", None)
            if kind is not None:
                if kind == "token_usage_done":
                    self.status.feed(item)
                renderer.feed(item)
            elif item is _END:
                self._next()
            elif isinstance(item, _Say):
                if item.level is None:
                    renderer.note(item.text)
                else:
                    renderer.notice(item.text, item.level)
            elif isinstance(item, Progress):
                self.progress = item.label
            elif isinstance(item, _Ready):
                self.runtime = item.runtime
                self._next()
            elif isinstance(item, _Failed):
                renderer.notice(item.message, "error")
                self.code = 2
                self._next()
                self._quit()
        self._request_frame()

    def _next(self) -> None:
        """Work on the Runtime's loop is over: run what was queued meanwhile."""
        self.busy = False
        self.renderer.end_stream()
        self._idle.set()
        if self.runtime is not None and self.runtime.quit_requested:
            self._quit()
        elif self.queue and self.runtime is not None and not self._closing:
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

    def _request_frame(self) -> None:
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

    def _quit(self) -> None:
        if not self._closing:
            self._closing = True
            self.app.create_background_task(self._close())

    async def _close(self) -> None:
        try:
            while self.choices:
                self._answer(None)
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
            if self.app.is_running and not self.app.future.done():
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
        self.host = TerminalHost(self, loop, self.pipe)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._quit)

        def boot() -> None:
            self.worker = _Worker()
            self.worker.run(self._boot())
            self._tick()

        # A first line of our own also keeps the screen's area off the terminal's top row, where
        # erasing it would clear the whole screen (which tmux, for one, pushes into scrollback).
        sys.stdout.write(self.renderer.theme.paint("grey", _banner(self.cwd)) + "\n\n")
        sys.stdout.flush()
        try:
            code = await self.app.run_async(pre_run=lambda: loop.call_soon(boot))
        finally:
            await self._shutdown()
            if self.worker is not None:
                self.worker.stop()
        sys.stdout.write(self.renderer.take())
        sys.stdout.flush()
        return code


def _banner(cwd: Path) -> str:
    from auger._version import __version__
    from auger.config.paths import display

    return f"auger {__version__} · {display(cwd)} · /help lists the commands"


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size:.0f}{unit} ago"
    return "just now"


def run_terminal(opts: Any, *, sessions: Sessions | None = None) -> int:
    """`auger` with no `-p`: an interactive session in this terminal; the exit code."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write(
            "auger: the interactive terminal needs a terminal — run a prompt with auger -p PROMPT\n"
        )
        return 2
    return asyncio.run(Terminal(opts, sessions=sessions or saved_sessions()).run())


def saved_sessions() -> Sessions:
    """The picker over this directory's saved sessions, resuming through `Runtime.switch`."""
    from auger.config.paths import auger_home
    from auger.session.paths import find_session, list_sessions

    home, cwd = auger_home(os.environ), Path(os.getcwd())

    def saved() -> list[tuple[str, str, float]]:
        now = time.time()
        return [(s.id, s.name or s.title, now - s.modified) for s in list_sessions(home, cwd)]

    async def resume(runtime: Runtime, session_id: str) -> None:
        await runtime.switch(find_session(home, cwd, session_id))

    return Sessions(saved, resume)
