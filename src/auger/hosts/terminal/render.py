"""The record stream as a person sees it: finished lines for the scrollback, and a live tail for
what is still streaming.

`feed(record)` only files a record away (a text delta costs an append); `take()` renders what is
finished, so a frame renders a burst of deltas at once. The renderer knows records by their
`type`, so it works for any record, custom ones included, and holds no agent logic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from auger.hosts.terminal.agent_view import AgentView
from auger.hosts.terminal.markdown import Markdown
from auger.hosts.terminal.text import Span, Theme, brief_args, clean, fit, tail_rows, width, wrap

LEVELS = {"info": ("ℹ", "cyan"), "warning": ("⚠", "yellow"), "error": ("✗", "red")}
RESULT_LINES = 12
"""Lines of an `edit` diff or a `!command`'s output shown before the rest is folded."""

# Notices the runtime raises for a failing extension (SPEC §2.1): shown prefixed `(extension)`.
_EXTENSION = re.compile(r"^(?:\S+ handler failed:|Extension \S+ failed to load:|reload failed)")
_GROUPED = frozenset({"tool", "notice"})
_ELBOW = "  ⎿ "


class Fold(NamedTuple):
    """Something shown shortened, and its styled lines in full."""

    title: str
    lines: list[str]


class Renderer:
    """Turns records into styled lines (`take`) and the still-streaming tail (`live`)."""

    def __init__(self, theme: Theme, cells: int = 80, live_rows: int = 10) -> None:
        self.theme = theme
        self._cells = cells
        self.live_rows = live_rows
        self._out: list[str] = []
        self._kind = ""
        self._shown = False
        self._parts: list[str] = []
        self._partial = ""
        self._md: Markdown | None = None
        self._fresh = False  # a reply begun that has shown nothing yet
        self._thinking: list[str] = []
        self._calls: dict[str, str] = {}
        self._running: dict[str, str] = {}
        self._folds: list[Fold] = []
        self._warned = False
        self.agent = AgentView(
            self.note, self.lines, lambda title, lines: self._folds.append(Fold(title, lines))
        )
        self._handlers: dict[str, Callable[[Any], None]] = {
            "text_delta": self._text_delta,
            "text_done": self._text_done,
            "reasoning_delta": self._reasoning_delta,
            "reasoning_done": self._reasoning_done,
            "tool_call_delta": self._tool_call_delta,
            "tool_call_done": self._tool_call_done,
            "before_tool_call": self._before_tool_call,
            "after_tool_call": self._after_tool_call,
            "command_output": self._command_output,
            "notify": lambda r: self.notice(r.message, r.level),
            "skill_activated": lambda r: self.note(f"✦ skill {r.name}"),
            "job_exit": self._job_exit,
            "compact": self._compact,
            "turn_end": self._turn_end,
            **self.agent.handlers(),
        }

    @property
    def cells(self) -> int:
        """The terminal's width in cells."""
        return self._cells

    @cells.setter
    def cells(self, value: int) -> None:
        self._cells = value
        if self._md is not None:
            self._md.cells = value

    # -- what the host calls -------------------------------------------------------------

    def feed(self, record: Any) -> None:
        """Take one record (records of unknown types are ignored)."""
        handler = self._handlers.get(record.type)
        if handler is not None:
            handler(record)

    def take(self) -> str:
        """The finished lines since the last call, each ending in a newline."""
        self._pump()
        if not self._out:
            return ""
        text = "\n".join(self._out) + "\n"
        self._out.clear()
        return text

    def has_live(self) -> bool:
        """Whether anything is still streaming."""
        return bool(
            self._thinking
            or self._parts
            or self._partial
            or self._calls
            or self._running
            or self.agent.children.running
            or (self._md is not None and self._md.pending())
        )

    def live(self) -> list[Span]:
        """What is still streaming, as `(style class, text)` fragments, at most `live_rows`."""
        rows: list[Span] = []
        if self._thinking:
            text = "".join(self._thinking).strip()
            for line in tail_rows(text.split("\n"), 3, self._cells - 2):
                rows.append(("class:live.reasoning", f"∴ {line}"))
        current = clean(self._partial + "".join(self._parts))
        lines = (self._md.pending() if self._md is not None else []) + current.split("\n")
        if current or len(lines) > 1:
            others = len(self._calls) + len(self._running) + len(self.agent.children.running)
            budget = max(self.live_rows - len(rows) - others, 1)
            rows += [("class:live.text", line) for line in tail_rows(lines, budget, self._cells)]
        for name in self._calls.values():
            rows.append(("class:live.tool", fit(f"⚙ {name}(…)", self._cells)))
        for header in self._running.values():
            rows.append(("class:live.tool", fit(f"⚙ {header}", self._cells)))
        for line in self.agent.children.live():
            rows.append(("class:live.tool", fit(line, self._cells)))
        out: list[Span] = []
        for i, row in enumerate(rows):
            if i:
                out.append(("", "\n"))
            out.append(row)
        return out

    def user(self, text: str) -> None:
        """Show what the person sent."""
        self._settle()
        self._block("user")
        for i, line in enumerate(clean(text).split("\n")):
            first = ("cyan bold", "› " if i == 0 else "  ")
            self._out += wrap(self.theme, [("bold", line)], self._cells, first, ("", "  "))

    def notice(self, message: str, level: str = "info") -> None:
        """A notice, coloured by level; an extension's failure is prefixed `(extension)`."""
        self._settle()
        self._block("notice")
        symbol, style = LEVELS.get(level, LEVELS["info"])
        if level != "info":
            self._warned = True
        prefix = "(extension) " if _EXTENSION.match(message) else ""
        text_style = "" if level == "info" else style
        for i, line in enumerate(clean(prefix + message).split("\n")):
            first = (style, f"{symbol} " if i == 0 else "  ")
            self._out += wrap(self.theme, [(text_style, line)], self._cells, first)

    def note(self, text: str) -> None:
        """A quiet line of the host's own (a model switch, an answer given)."""
        self._settle()
        self._block("notice")
        self._out += wrap(self.theme, [("grey", clean(text))], self._cells)

    def lines(self, text: str) -> None:
        """Plain text of the host's own (a plan), indented under the note before it."""
        for line in clean(text).split("\n"):
            self._out += wrap(self.theme, [("", line)], self._cells, ("", "  "), ("", "  "))

    def folded(self) -> list[str]:
        """The titles of what was shown shortened, oldest first."""
        return [fold.title for fold in self._folds]

    def expand(self, index: int = -1) -> bool:
        """Show in full the thing shown shortened at `index` (the latest by default)."""
        if not -len(self._folds) <= index < len(self._folds):
            return False
        fold = self._folds.pop(index)
        self._settle()
        self._block("fold")
        self._out.append(self.theme.paint("grey", fit(f"── {fold.title}", self._cells)))
        self._out += fold.lines
        return True

    def end_stream(self) -> None:
        """A stream is over: whatever is left streaming is finished as it stands."""
        self._pump(final=True)
        if self._thinking:
            self._end_reasoning("".join(self._thinking))
        self._calls.clear()
        self._running.clear()

    # -- records -------------------------------------------------------------------------

    def _text_delta(self, record: Any) -> None:
        if self._thinking:
            self._end_reasoning("".join(self._thinking))
        self._parts.append(record.content)

    def _text_done(self, record: Any) -> None:
        self._pump(final=True)

    def _reasoning_delta(self, record: Any) -> None:
        self._thinking.append(record.content)

    def _reasoning_done(self, record: Any) -> None:
        self._end_reasoning(record.content)

    def _tool_call_delta(self, record: Any) -> None:
        if record.name:
            self._settle()
            self._calls[record.call_id] = record.name

    def _tool_call_done(self, record: Any) -> None:
        self._settle()
        self._calls[record.call_id] = record.name

    def _before_tool_call(self, record: Any) -> None:
        self._settle()
        self._calls.pop(record.call_id, None)
        self._running[record.call_id] = f"{record.tool}({brief_args(record.args)})"

    def _after_tool_call(self, record: Any) -> None:
        self._settle()
        self._calls.pop(record.call_id, None)
        self._running.pop(record.call_id, None)
        result = record.result
        self._block("tool")
        header = self._header(record.tool, record.args, result.is_error)
        self._out.append(header)
        content = clean(result.content).strip("\n")
        lines = content.split("\n") if content else []
        full = [self.theme.paint("red", line) for line in lines] if result.is_error else lines
        if result.is_error:
            first = next(
                (line for line in lines if line.strip() and line != "(no output)"),
                result.error_type or "error",
            )
            self._result_line(f"✗ {first.strip()}", "red", len(lines) - 1)
        elif record.tool == "edit" and "\n@@" in content:
            summary, _, diff = content.partition("\n\n")
            self._result_line(summary, "", 0)
            full = [summary, "", *(self._diff_line(line) for line in diff.split("\n"))]
            shown = full[2 : 2 + RESULT_LINES]
            self._out += ["    " + line for line in shown]
            hidden = len(full) - 2 - len(shown)
            if hidden > 0:
                self._out.append(self.theme.paint("grey", f"    … +{hidden} lines (ctrl-o)"))
        else:
            first = next((line for line in lines if line.strip()), "(no output)")
            self._result_line(first.strip(), "grey", len(lines) - 1)
        if len(lines) > 1:
            self._folds.append(Fold(f"{record.tool}({brief_args(record.args)})", full))

    def _command_output(self, record: Any) -> None:
        self._settle()
        self._block("output")
        text = clean(record.text).rstrip("\n")
        lines = text.split("\n") if text else []
        if not record.command.startswith("!"):
            for line in lines:
                self._out += wrap(self.theme, [("", line)], self._cells)
            return
        command = fit(record.command[1:].strip(), self._cells - 2)
        self._out.append(self.theme.paint("bold", f"$ {command}"))
        self._out += lines[:RESULT_LINES] or [self.theme.paint("grey", "(no output)")]
        hidden = len(lines) - RESULT_LINES
        if hidden > 0:
            self._out.append(self.theme.paint("grey", f"… +{hidden} lines (ctrl-o)"))
            self._folds.append(Fold(f"$ {command}", lines))

    def _job_exit(self, record: Any) -> None:
        status = (
            f"exit code {record.exit_status}"
            if record.exit_status is not None
            else f"signal {record.signal}"
        )
        self.note(f"⚑ job {record.job_id} ({record.command}) ended: {status}")

    def _compact(self, record: Any) -> None:
        how = "automatically" if record.automatic else "on request"
        self.note(
            f"⟳ conversation compacted {how}: {record.dropped} messages summarised, "
            f"{record.kept} kept"
        )

    def _turn_end(self, record: Any) -> None:
        self.end_stream()
        self.agent.end_turn()
        reason = record.stop_reason
        if reason == "cancelled":
            self._settle()
            self._block("notice")
            self._out.append(self.theme.paint("yellow", "⏹ cancelled"))
        elif reason != "completed" and not self._warned:
            error = getattr(record, "error", None) or {}
            detail = f": {error['message']}" if error.get("message") else ""
            self.notice(f"turn ended ({reason}){detail}", "error")
        self._warned = False

    # -- helpers -------------------------------------------------------------------------

    def _block(self, kind: str) -> None:
        """Start a block of `kind`, a blank line away from the one before unless both are of
        a kind shown grouped (tool calls, notices)."""
        if self._shown and (kind != self._kind or kind not in _GROUPED):
            self._out.append("")
        self._kind = kind
        self._shown = True

    def _settle(self) -> None:
        """Show the finished lines of a reply and the reasoning so far before something else."""
        self._pump()
        if self._thinking:
            self._end_reasoning("".join(self._thinking))

    def _pump(self, final: bool = False) -> None:
        if self._parts:
            data = self._partial + "".join(self._parts)
            self._parts.clear()
            *lines, self._partial = data.split("\n")
            self._text_lines(lines)
        if final:
            if self._partial:
                self._text_lines([self._partial])
                self._partial = ""
            if self._md is not None:
                self._show_text(self._md.end())
                self._md = None

    def _text_lines(self, lines: list[str]) -> None:
        if self._md is None:
            first = next((i for i, line in enumerate(lines) if line.strip()), None)
            if first is None:
                return
            lines = lines[first:]
            self._md = Markdown(self.theme, self._cells)
            self._fresh = True
        self._show_text(self._md.lines(lines))

    def _show_text(self, shown: list[str]) -> None:
        """A reply's finished lines, set apart from what came between them and the last."""
        if not shown:
            return
        if self._kind != "text" or self._fresh:
            if not shown[0]:
                shown = shown[1:]
            self._block("text")
            self._fresh = False
        self._out += shown

    def _end_reasoning(self, text: str) -> None:
        self._thinking.clear()
        lines = clean(text).strip().split("\n")
        if not lines[0]:
            return
        self._pump()
        self._block("reasoning")
        more = f"  (+{len(lines) - 1} lines, ctrl-o)" if len(lines) > 1 else ""
        head = fit(f"∴ {lines[0]}", self._cells - width(more))
        self._out.append(self.theme.paint("grey italic", head) + self.theme.paint("grey", more))
        bar = ("grey", "│ ")
        full = [
            row
            for line in lines
            for row in wrap(self.theme, [("grey italic", line)], self._cells, bar, bar)
        ]
        self._folds.append(Fold("reasoning", full))

    def _header(self, tool: str, args: dict[str, Any], failed: bool) -> str:
        body = fit(f"{tool}({brief_args(args)})", self._cells - 2)
        name, rest = body[: len(tool)], body[len(tool) :]
        mark = self.theme.paint("red" if failed else "green", "⚙ ")
        return mark + self.theme.paint("bold", name) + self.theme.paint("grey", rest)

    def _result_line(self, text: str, style: str, more: int) -> None:
        extra = f" (+{more} lines, ctrl-o)" if more > 0 else ""
        room = self._cells - width(_ELBOW) - width(extra)
        self._out.append(
            self.theme.paint("grey", _ELBOW)
            + self.theme.paint(style, fit(text, room))
            + self.theme.paint("grey", extra)
        )

    def _diff_line(self, line: str) -> str:
        if line.startswith(("+++", "---")):
            return self.theme.paint("bold", line)
        if line.startswith("+"):
            return self.theme.paint("green", line)
        if line.startswith("-"):
            return self.theme.paint("red", line)
        if line.startswith("@@"):
            return self.theme.paint("cyan", line)
        return line
