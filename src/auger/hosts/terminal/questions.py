"""Questions asked inline, one at a time: the host's questions and the model and session pickers."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auger.hosts.terminal.app import Terminal
    from auger.runtime import Runtime


@dataclass
class Choice:
    """A question on screen: pick one of `options`, or type an answer when there are none;
    `detail` (styled lines, scrolled by `scroll`) says what is being decided."""

    question: str
    options: list[str] | None
    secret: bool
    done: Callable[[str | None], None]
    detail: list[tuple[str, str]] = field(default_factory=list)
    selected: int = 0
    filter: str = ""
    scroll: int = 0

    def matches(self) -> list[str]:
        """The options that contain what was typed."""
        typed = self.filter.lower()
        return [o for o in self.options or () if typed in o.lower()]


class Questions:
    """The questions waiting on screen, first one shown; the host's `Surface`."""

    def __init__(self, term: Terminal) -> None:
        self.term = term
        self.choices: deque[Choice] = deque()

    def choose(
        self,
        question: str,
        options: list[str] | None,
        secret: bool,
        done: Callable[[str | None], None],
        detail: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Ask inline (the host's `ask`); `done` gets the answer, or `None` when declined."""
        if self.term.closing:
            done(None)
            return
        self.choices.append(Choice(question, options, secret, done, list(detail)))
        if len(self.choices) == 1:
            self.focus()

    def answer(self, value: str | None) -> None:
        """Answer the question on screen (`None` declines it) and show the next one."""
        term = self.term
        choice = self.choices.popleft()
        if value is None:
            shown = "(no answer)"
        else:
            shown = "•" * min(len(value), 12) if choice.secret else value
        term.renderer.note(f"? {choice.question} › {shown}")
        term.request_frame()
        choice.done(value)
        self.focus()

    def focus(self) -> None:
        """Focus what the first question needs: its list, its answer, or the input when none."""
        term = self.term
        windows = term.windows
        if not self.choices:
            term.app.layout.focus(windows.input)
        elif self.choices[0].options is None:
            term.answer.reset()
            term.app.layout.focus(windows.answer)
        else:
            term.app.layout.focus(windows.choice)
        term.app.invalidate()

    def pick_fold(self) -> None:
        """Show a shortened tool call or output in full: the only one, or the one picked."""
        term = self.term
        titles = term.renderer.folded()
        if len(titles) <= 1:
            if not term.renderer.expand():
                term.say_hint("nothing to expand")
            term.request_frame()
            return
        labels = {f"{n}. {title}": n - 1 for n, title in enumerate(titles, 1)}

        def chosen(label: str | None) -> None:
            if label is not None:
                term.renderer.expand(labels[label])
                term.request_frame()

        self.choose("Show which in full?", list(reversed(labels)), False, chosen)

    def pick_model(self) -> None:
        """Ask which model to use from now on, between turns."""
        term = self.term
        runtime = term.runtime
        if runtime is None or term.busy:
            term.say_hint("the model can be changed once this turn is over")
            return
        from auger.config import with_credentials
        from auger.hosts.terminal.boot import model_choices

        runtime.reread_settings()  # a provider added to settings since shows at once
        keys = with_credentials(runtime.env, runtime.home)
        options = model_choices(runtime.settings, runtime.model.id, keys)

        def chosen(spec: str | None) -> None:
            if spec and spec != runtime.model.id and not term.busy:
                term.work(self._set_model(runtime, spec))

        self.choose(f"Model (now {runtime.model.id})", options, False, chosen)

    async def _set_model(self, runtime: Runtime, spec: str) -> None:
        from auger.config import ConfigError

        try:
            await runtime.set_model(spec)
        except ConfigError as exc:
            self.term.say(str(exc), "error")
        else:
            self.term.say(f"model → {runtime.model.id}")

    def pick_session(self) -> None:
        """Ask which saved session to resume, between turns."""
        term = self.term
        runtime, sessions = term.runtime, term.sessions
        try:
            saved = sessions.saved() if sessions is not None else []
        except Exception as exc:  # another component's failure must not take the screen down
            term.renderer.notice(f"cannot list the saved sessions: {exc}", "error")
            term.request_frame()
            return
        if not saved or sessions is None:
            term.renderer.note("no saved sessions yet")
            term.request_frame()
            return
        if runtime is None or term.busy:
            term.say_hint("a session can be resumed once this turn is over")
            return
        labels = {f"{title} · {_age(age)} · {sid}": sid for sid, title, age in saved}

        def chosen(label: str | None) -> None:
            if label is not None and not term.busy:
                term.work(sessions.resume(runtime, labels[label]))

        self.choose("Resume a session", list(labels), False, chosen)


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size:.0f}{unit} ago"
    return "just now"
