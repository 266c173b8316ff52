"""Styled text for the terminal: ANSI styles, display width, sanitising, wrapping and fitting."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from wcwidth import wcswidth

RESET = "\x1b[0m"

# Escape sequences and control characters a tool's output or a reply may carry: shown as-is they
# could move the cursor or change the terminal's modes, so they are dropped (tabs and newlines are
# kept). C1 controls too: U+009B is CSI to a terminal that reads 8-bit controls.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[@-_]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_SPACES = re.compile(r"(\s+)")


class Theme:
    """The SGR parameters of each named style; with `color=False` every style is plain."""

    NAMES: ClassVar[dict[str, str]] = {
        "bold": "1",
        "dim": "2",
        "italic": "3",
        "underline": "4",
        "strike": "9",
        "red": "31",
        "green": "32",
        "yellow": "33",
        "blue": "34",
        "magenta": "35",
        "cyan": "36",
        "grey": "90",
    }

    def __init__(self, color: bool = True) -> None:
        self.color = color
        self._cache: dict[str, str] = {}

    def sgr(self, style: str) -> str:
        """The escape sequence that turns on `style` (space-separated names), or ``""``."""
        if not self.color or not style:
            return ""
        code = self._cache.get(style)
        if code is None:
            params = ";".join(self.NAMES[name] for name in style.split())
            code = self._cache[style] = f"\x1b[{params}m"
        return code

    def paint(self, style: str, text: str) -> str:
        """`text` in `style`."""
        on = self.sgr(style)
        return f"{on}{text}{RESET}" if on and text else text


Span = tuple[str, str]
"""A run of text and its style: ``(style, text)``."""


def clean(text: str) -> str:
    """`text` without escape sequences or control characters, tabs expanded."""
    if text.isprintable():
        return text
    return _CONTROL.sub("", text).expandtabs(4)


def width(text: str) -> int:
    """How many terminal cells `text` takes."""
    if text.isascii():
        return len(text)
    cells = wcswidth(text)
    return cells if cells >= 0 else len(text)


def fit(text: str, cells: int, ellipsis: str = "…") -> str:
    """`text` cut to `cells` terminal cells, ending in `ellipsis` when cut."""
    if width(text) <= cells:
        return text
    if cells <= 0:
        return ""
    room = cells - width(ellipsis)
    if text.isascii():
        return text[: max(room, 0)] + ellipsis
    out, used = [], 0
    for ch in text:
        w = max(wcswidth(ch), 0)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + ellipsis


def join(theme: Theme, spans: Iterable[Span]) -> str:
    """The spans as one string with their styles."""
    return "".join(theme.paint(style, text) for style, text in spans)


def wrap(
    theme: Theme,
    spans: Sequence[Span],
    cells: int,
    first: Span = ("", ""),
    rest: Span | None = None,
) -> list[str]:
    """Styled lines of at most `cells` cells: `first` before the first line, `rest` (by default
    as many spaces) before the others, breaking at spaces and inside words too long to fit."""
    if rest is None:
        rest = ("", " " * width(first[1]))
    total = sum(width(text) for _, text in spans)
    if total + width(first[1]) <= cells:
        return [join(theme, (first, *spans))]
    lines: list[str] = []
    line: list[Span] = [first]
    used = width(first[1])
    room = max(cells, width(rest[1]) + 8)
    for style, text in spans:
        for piece in _SPACES.split(text):
            if not piece:
                continue
            w = width(piece)
            if piece.isspace():
                if used + w <= room and used > width(line[0][1]):
                    line.append((style, piece))
                    used += w
                continue
            while used + w > room:
                if used > width(line[0][1]):
                    _trim(line)
                    lines.append(join(theme, line))
                    line, used = [rest], width(rest[1])
                    continue
                head = fit(piece, room - used, "") or piece[0]
                line.append((style, head))
                lines.append(join(theme, line))
                piece = piece[len(head) :]
                line, used, w = [rest], width(rest[1]), width(piece)
            line.append((style, piece))
            used += w
    _trim(line)
    lines.append(join(theme, line))
    return lines


def _trim(line: list[Span]) -> None:
    while len(line) > 1 and line[-1][1].isspace():
        line.pop()


def brief_args(args: dict[str, Any]) -> str:
    """A tool call's arguments on one line: `key="value", …` with long strings cut."""
    parts = []
    for key, value in args.items():
        if isinstance(value, str) and len(value) > 80:
            value = value[:79] + "…"
        parts.append(f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}")
    return ", ".join(parts)


def tail_rows(lines: list[str], rows: int, cells: int) -> list[str]:
    """The last lines that fill at most `rows` rows of `cells` cells (the first may be cut)."""
    cells = max(cells, 1)
    out: list[str] = []
    for line in reversed(lines):
        need = max(1, -(-width(line) // cells))
        if need > rows:
            if rows > 0:
                out.append("…" + line[-(rows * cells - 1) :])
            break
        out.append(line)
        rows -= need
        if rows == 0:
            break
    out.reverse()
    return out
