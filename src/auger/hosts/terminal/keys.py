"""The terminal's key bindings: everywhere, in the input, in a list to choose from, in an answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from auger.hosts.terminal.host import YES_NO

if TYPE_CHECKING:
    from auger.hosts.terminal.app import Terminal
    from auger.hosts.terminal.questions import Questions

PASTE_LINES = 10
PASTE_CHARS = 2000
"""A paste this long is shown in the input as a placeholder (and sent in full)."""

# Shift-Enter as kitty (CSI u) and xterm (modifyOtherKeys) send it: a new line, like Alt-Enter.
ANSI_SEQUENCES["\x1b[13;2u"] = (Keys.Escape, Keys.ControlM)
ANSI_SEQUENCES["\x1b[27;2;13~"] = (Keys.Escape, Keys.ControlM)


def global_keys(term: Terminal) -> KeyBindings:
    """Quitting, cancelling, expanding, and the pickers: keys that work while no question is up."""
    kb = KeyBindings()
    free = Condition(lambda: not term.questions.choices)

    @kb.add("c-c")
    @kb.add(Keys.SIGINT)
    def _(event: KeyPressEvent) -> None:
        term.ctrl_c()

    @kb.add("c-d", filter=free & Condition(lambda: not term.input.text))
    def _(event: KeyPressEvent) -> None:
        term.quit()

    @kb.add("escape", filter=free)
    def _(event: KeyPressEvent) -> None:
        if term.input.complete_state is not None:
            term.input.cancel_completion()
        elif term.busy and term.runtime is not None:
            term.runtime.cancel()

    @kb.add("c-o", filter=free)
    def _(event: KeyPressEvent) -> None:
        term.questions.pick_fold()

    @kb.add("s-tab", filter=free)
    def _(event: KeyPressEvent) -> None:
        from auger.hosts.terminal.modes import cycle

        cycle(term)

    @kb.add("c-l", filter=free)
    def _(event: KeyPressEvent) -> None:
        term.questions.pick_model()

    @kb.add("c-s", filter=free)
    def _(event: KeyPressEvent) -> None:
        term.questions.pick_session()

    return kb


def input_keys(term: Terminal) -> KeyBindings:
    """Submitting, new lines, and long pastes as placeholders, in the input."""
    kb = KeyBindings()
    buffer = term.input

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.complete_state = None
            return
        term.submit()

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _(event: KeyPressEvent) -> None:
        buffer.insert_text("\n")

    @kb.add(Keys.BracketedPaste)
    def _(event: KeyPressEvent) -> None:
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")
        lines = data.count("\n") + 1
        if lines < PASTE_LINES and len(data) < PASTE_CHARS:
            buffer.insert_text(data)
            return
        token = f"[paste #{len(term.pastes) + 1}: {lines} lines, {len(data)} chars]"
        term.pastes[token] = data
        buffer.insert_text(token)

    return kb


def choice_keys(questions: Questions) -> KeyBindings:
    """Moving, filtering and choosing in the list of the question on screen."""
    kb = KeyBindings()
    choices = questions.choices

    def move(by: int) -> None:
        choice = choices[0]
        count = len(choice.matches())
        if count:
            choice.selected = (choice.selected + by) % count

    kb.add("up")(lambda event: move(-1))
    kb.add("c-p")(lambda event: move(-1))
    kb.add("down")(lambda event: move(1))
    kb.add("c-n")(lambda event: move(1))
    kb.add("tab")(lambda event: move(1))

    def scroll(pages: int) -> None:
        from auger.hosts.terminal.layout import detail_rows

        choice = choices[0]
        step = max(1, detail_rows(questions.term) - 2)
        choice.scroll = max(0, choice.scroll + pages * step)  # the screen caps it at the end

    kb.add("pageup")(lambda event: scroll(-1))
    kb.add("pagedown")(lambda event: scroll(1))

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        options = choices[0].matches()
        if options:
            questions.answer(options[choices[0].selected])

    @kb.add("escape")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        questions.answer(None)

    @kb.add("backspace")
    def _(event: KeyPressEvent) -> None:
        choice = choices[0]
        choice.filter, choice.selected = choice.filter[:-1], 0

    @kb.add(Keys.Any)
    def _(event: KeyPressEvent) -> None:
        choice = choices[0]
        if choice.options == YES_NO and event.data.lower() in ("y", "n"):
            questions.answer("Yes" if event.data.lower() == "y" else "No")
        elif event.data.isprintable():
            choice.filter, choice.selected = choice.filter + event.data, 0

    return kb


def answer_keys(questions: Questions, answer: Buffer) -> KeyBindings:
    """Sending or declining the answer typed in `answer`."""
    kb = KeyBindings()

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        questions.answer(answer.text)

    @kb.add("escape")
    @kb.add("c-c")
    def _(event: KeyPressEvent) -> None:
        questions.answer(None)

    return kb
