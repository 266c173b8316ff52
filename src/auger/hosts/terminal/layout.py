"""The terminal's screen: the prompt_toolkit application, its windows, and the text they show.

From the top: what is still streaming, the spinner, the queued messages, a rule, then either the
question on screen or the input, and the status line.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
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

from auger.hosts.terminal.host import YES_NO
from auger.hosts.terminal.keys import answer_keys, choice_keys, global_keys, input_keys
from auger.hosts.terminal.text import fit, width

if TYPE_CHECKING:
    from auger.hosts.terminal.app import Terminal
    from auger.hosts.terminal.questions import Questions

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
    "todo": "",
    "todo.active": "bold",
    "todo.done": "ansibrightblack",
    "detail": "",
    "detail.dim": "ansibrightblack",
    "diff.file": "bold",
    "diff.hunk": "ansicyan",
    "diff.add": "ansigreen",
    "diff.del": "ansired",
}


class Windows:
    """The windows that take the focus in turn: the input, a list to choose from, an answer."""

    def __init__(self, term: Terminal) -> None:
        questions = term.questions
        secret = Condition(lambda: bool(questions.choices) and questions.choices[0].secret)
        buffer = term.input

        def height() -> Dimension:
            # Room below the cursor for the completion menu while it is open.
            return Dimension(min=9) if buffer.complete_state is not None else Dimension()

        self.input = Window(
            BufferControl(buffer, key_bindings=input_keys(term)),
            height=height,
            wrap_lines=True,
            get_line_prefix=_prefix,
            dont_extend_height=True,
        )
        self.choice = Window(
            FormattedTextControl(
                lambda: _choice_text(questions),
                focusable=True,
                key_bindings=choice_keys(questions),
                show_cursor=False,
            ),
            wrap_lines=True,
            dont_extend_height=True,
        )
        self.detail = Window(
            FormattedTextControl(lambda: _detail_text(term)),
            dont_extend_height=True,
        )
        self.answer = Window(
            BufferControl(
                term.answer,
                input_processors=[ConditionalProcessor(PasswordProcessor(), secret)],
                key_bindings=answer_keys(questions, term.answer),
            ),
            height=1,
            get_line_prefix=lambda line, wrap: [("class:prompt", "› ")],
        )


def application(term: Terminal, windows: Windows) -> Application[int]:
    """The inline application of `term`'s session, laid out around `windows`."""
    questions = term.questions
    choosing = Condition(
        lambda: bool(questions.choices) and questions.choices[0].options is not None
    )
    typing = Condition(lambda: bool(questions.choices) and questions.choices[0].options is None)

    def question() -> Window:
        return Window(
            FormattedTextControl(lambda: _question_text(questions)),
            wrap_lines=True,
            dont_extend_height=True,
        )

    working = Condition(lambda: term.busy or term.progress is not None)
    body = HSplit(
        [
            ConditionalContainer(
                Window(
                    FormattedTextControl(lambda: cast(StyleAndTextTuples, term.renderer.live())),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
                Condition(term.renderer.has_live),
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _spinner_text(term)), height=1), working
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _queue_text(term)), dont_extend_height=True),
                Condition(lambda: bool(term.queue) and term.runtime is not None),
            ),
            ConditionalContainer(
                Window(
                    FormattedTextControl(
                        lambda: cast(StyleAndTextTuples, term.renderer.agent.checklist.spans())
                    ),
                    dont_extend_height=True,
                ),
                Condition(lambda: term.renderer.agent.checklist.open),
            ),
            Window(char="─", height=1, style="class:rule"),
            ConditionalContainer(HSplit([question(), windows.detail, windows.choice]), choosing),
            ConditionalContainer(HSplit([question(), windows.answer]), typing),
            ConditionalContainer(
                FloatContainer(
                    windows.input,
                    floats=[
                        Float(
                            xcursor=True,
                            ycursor=True,
                            content=CompletionsMenu(max_height=8, scroll_offset=1),
                        )
                    ],
                ),
                Condition(lambda: not questions.choices),
            ),
            Window(FormattedTextControl(lambda: _status_text(term)), height=1),
        ]
    )
    app: Application[int] = Application(
        layout=Layout(body, focused_element=windows.input),
        key_bindings=global_keys(term),
        style=Style.from_dict(STYLE),
        full_screen=False,
        erase_when_done=True,
        mouse_support=False,
        min_redraw_interval=0.03,
    )
    # A lone Esc cancels: wait only briefly for the rest of an Alt- or escape sequence.
    app.timeoutlen, app.ttimeoutlen = 0.2, 0.05
    return app


def _prefix(line: int, wrap: int) -> StyleAndTextTuples:
    return [("class:prompt", "› " if line == 0 and wrap == 0 else "  ")]


def _question_text(questions: Questions) -> StyleAndTextTuples:
    import textwrap

    choice = questions.choices[0]
    hint = " (y/n)" if choice.options == YES_NO else ""
    cells = questions.term.app.output.get_size().columns - 1
    # wrapped here, at spaces: the window would break words at the edge of the screen
    text = f"? {choice.question}{hint}"
    lines = textwrap.wrap(text, max(cells, 20), subsequent_indent="  ", break_on_hyphens=False)
    return [("class:question", "\n".join(lines))]


def detail_rows(term: Terminal) -> int:
    """How many rows the question's detail may take: what the choices leave of the screen."""
    choice = term.questions.choices[0]
    shown = min(len(choice.matches()), CHOICE_ROWS) + (1 if choice.filter else 0)
    return max(3, term.app.output.get_size().rows - shown - 6)


def _detail_text(term: Terminal) -> StyleAndTextTuples:
    questions = term.questions
    if not questions.choices or not questions.choices[0].detail:
        return []
    choice = questions.choices[0]
    lines, rows = choice.detail, detail_rows(term)
    cells = term.app.output.get_size().columns - 1
    if len(lines) > rows:
        rows -= 1
        choice.scroll = max(0, min(choice.scroll, len(lines) - rows))
    shown = lines[choice.scroll : choice.scroll + rows]
    out: StyleAndTextTuples = []
    for style, line in shown:
        out.append((style, fit("  " + line, cells) + "\n"))
    if len(lines) > len(shown):
        above, below = choice.scroll, len(lines) - choice.scroll - len(shown)
        out.append(
            (
                "class:hint",
                f"  lines {above + 1}–{above + len(shown)} of {len(lines)}"
                f"{f' · {below} more below' if below else ''} · pgup/pgdn scroll\n",
            )
        )
    return out


def _choice_text(questions: Questions) -> StyleAndTextTuples:
    choice = questions.choices[0]
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
    esc = "esc deny and stop" if choice.detail else "esc cancel"
    out.append(("class:hint", f"  ↑↓ move · enter choose · {esc}{more}"))
    return out


def _spinner_text(term: Terminal) -> StyleAndTextTuples:
    now = time.monotonic()
    if term.runtime is None:
        label = "starting"
    elif term.closing:
        label = "closing"
    else:
        label = term.progress or "working"
    frame = SPINNER[int(now * 10) % len(SPINNER)]
    out: StyleAndTextTuples = [("class:spinner", f"{frame} "), ("", f"{label}… ")]
    if term.busy and term.runtime is not None and not term.closing:
        out.append(("class:hint", f"{now - term.since:.0f}s · esc to cancel"))
    return out


def _queue_text(term: Terminal) -> StyleAndTextTuples:
    cells = term.app.output.get_size().columns
    out: StyleAndTextTuples = []
    for i, text in enumerate(list(term.queue)[:3]):
        first = text.strip().split("\n")[0]
        out.append(("class:queued", ("\n" if i else "") + fit(f"⏵ queued: {first}", cells)))
    if len(term.queue) > 3:
        out.append(("class:queued", f"\n  … and {len(term.queue) - 3} more"))
    return out


def _status_text(term: Terminal) -> StyleAndTextTuples:
    runtime, status = term.runtime, term.status
    if runtime is not None:
        status.model = runtime.model.id
        status.window = runtime.model.context_window
        status.usage = runtime.usage_total
    left = status.line()
    right = term.hint() or KEYS_HINT
    cells = term.app.output.get_size().columns
    pad = cells - width(left) - width(right) - 1
    if pad < 2:
        return [("class:status", fit(left, cells - 1))]
    return [("class:status", left), ("", " " * pad), ("class:hint", right)]
