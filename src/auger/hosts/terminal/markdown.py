"""Markdown rendered line by line as it streams: each finished line is styled at once, so the
reply reaches the scrollback while it is being written. Code blocks and tables wait for their
end (a long code block is let out in chunks) because they are styled as a whole."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from auger.hosts.terminal.text import Span, Theme, clean, join, width, wrap

CODE_CHUNK = 40
"""Lines of an open code block held back before they are let out anyway."""

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+#.-]*)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_TASK = re.compile(r"^\[([ xX])\]\s+")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_DIVIDER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_INLINE = re.compile(
    r"(?P<tick>`+)(?P<code>.+?)(?P=tick)"
    r"|\*\*(?P<b1>\S(?:.*?\S)?)\*\*"
    r"|(?<!\w)__(?P<b2>\S(?:.*?\S)?)__(?!\w)"
    r"|(?<![*\w])\*(?P<i1>[^*\s](?:[^*]*?[^*\s])?)\*(?![*\w])"
    r"|(?<![_\w])_(?P<i2>[^_\s](?:[^_]*?[^_\s])?)_(?![_\w])"
    r"|~~(?P<s>[^~]+?)~~"
    r"|\[(?P<label>[^\]]+)\]\((?P<url>[^)\s]+)\)"
)
_MARKS = frozenset("`*_~[")

_HEADING_STYLES = {1: "bold underline magenta", 2: "bold magenta"}

# Pygments token types, most specific first where it matters, to terminal styles.
_TOKEN_STYLES = {
    ("Comment",): "grey italic",
    ("Keyword",): "magenta",
    ("Keyword", "Constant"): "cyan",
    ("Keyword", "Type"): "cyan",
    ("Operator", "Word"): "magenta",
    ("Name", "Builtin"): "cyan",
    ("Name", "Function"): "blue",
    ("Name", "Class"): "yellow",
    ("Name", "Decorator"): "magenta",
    ("Name", "Tag"): "magenta",
    ("Name", "Attribute"): "cyan",
    ("Literal", "String"): "green",
    ("Literal", "Number"): "yellow",
    ("Generic", "Inserted"): "green",
    ("Generic", "Deleted"): "red",
    ("Generic", "Heading"): "bold",
    ("Generic", "Subheading"): "cyan",
}


def inline(text: str, style: str = "") -> list[Span]:
    """The spans of one line of Markdown: code, bold, italic, strike-through and links."""
    if not _MARKS.intersection(text):
        return [(style, text)]
    spans: list[Span] = []
    at = 0
    for m in _INLINE.finditer(text):
        if m.start() > at:
            spans.append((style, text[at : m.start()]))
        at = m.end()
        kind = m.lastgroup
        if kind == "code":
            spans.append((f"{style} cyan".strip(), m["code"]))
        elif kind in ("b1", "b2"):
            spans += inline(m[kind], f"{style} bold".strip())
        elif kind in ("i1", "i2"):
            spans += inline(m[kind], f"{style} italic".strip())
        elif kind == "s":
            spans += inline(m["s"], f"{style} strike".strip())
        else:
            spans += inline(m["label"], f"{style} underline blue".strip())
            if m["url"] != m["label"]:
                spans.append((f"{style} grey".strip(), f" ({m['url']})"))
    if at < len(text):
        spans.append((style, text[at:]))
    return spans


@lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=256)
def _token_style(token: Any) -> str:
    while token is not None and len(token):
        style = _TOKEN_STYLES.get(tuple(token))
        if style is not None:
            return style
        token = token.parent
    return ""


def highlight(theme: Theme, code: list[str], language: str) -> list[str]:
    """Lines of code in `language`, coloured (plain when the language is unknown)."""
    lexer = _lexer(language.lower()) if language and theme.color else None
    if lexer is None:
        return code
    lines: list[list[Span]] = [[]]
    for token, value in lexer.get_tokens("\n".join(code)):
        style = _token_style(token)
        first, *more = value.split("\n")
        line = lines[-1]
        if first and line and line[-1][0] == style:
            line[-1] = (style, line[-1][1] + first)
        elif first:
            line.append((style, first))
        for piece in more:
            lines.append([(style, piece)] if piece else [])
    return [join(theme, spans) for spans in lines[: len(code)]]


class Markdown:
    """One reply's Markdown, fed a finished line at a time; returns the lines to show."""

    def __init__(self, theme: Theme, cells: int) -> None:
        self.theme = theme
        self.cells = cells
        self._fence: str | None = None
        self._language = ""
        self._code: list[str] = []
        self._table: list[str] = []
        self._started = False
        self._blank = False

    def pending(self) -> list[str]:
        """Lines read but not yet shown (an open code block or table)."""
        return self._code or self._table

    def line(self, raw: str) -> list[str]:
        """Take one finished line; the styled lines it lets out (maybe none yet)."""
        text = clean(raw.rstrip("\r"))
        if self._fence is not None:
            return self._code_line(text)
        out: list[str] = []
        if self._table and not _ROW.match(text):
            out = self._end_table()
        if not text.strip():
            self._blank = self._started
            return out
        if self._blank:
            out.append("")
            self._blank = False
        self._started = True
        if _ROW.match(text):
            self._table.append(text)
            return out
        fence = _FENCE.match(text)
        if fence:
            self._fence, self._language = fence[1], fence[2]
            out.append(self.theme.paint("grey", text))
            return out
        out += self._block(text)
        return out

    def end(self) -> list[str]:
        """The reply is over: show what was held back."""
        out = self._end_table()
        if self._code:
            out += highlight(self.theme, self._code, self._language)
            self._code = []
        self._fence = None
        return out

    def _code_line(self, text: str) -> list[str]:
        fence = self._fence
        assert fence is not None
        stripped = text.strip()
        if stripped.startswith(fence) and not stripped.strip(fence[0]):
            out = highlight(self.theme, self._code, self._language)
            out.append(self.theme.paint("grey", text))
            self._code, self._fence = [], None
            return out
        self._code.append(text)
        if len(self._code) < CODE_CHUNK:
            return []
        out = highlight(self.theme, self._code, self._language)
        self._code = []
        return out

    def _block(self, text: str) -> list[str]:
        theme, cells = self.theme, self.cells
        heading = _HEADING.match(text)
        if heading:
            level = len(heading[1])
            return wrap(theme, inline(heading[2], _HEADING_STYLES.get(level, "bold")), cells)
        if _RULE.match(text):
            return [theme.paint("grey", "─" * min(cells, 80))]
        item = _ITEM.match(text)
        if item:
            indent, marker, body = item.groups()
            if marker in "-*+":
                task = _TASK.match(body)
                if task:
                    marker, body = ("☑" if task[1] != " " else "☐"), body[task.end() :]
                else:
                    marker = "•"
            first = ("yellow", f"{indent}{marker} ")
            return wrap(theme, inline(body), cells, first, ("", " " * width(first[1])))
        quote = _QUOTE.match(text)
        if quote:
            bar = ("grey", "│ ")
            return wrap(theme, inline(quote[1], "italic"), cells, bar, bar)
        indent = text[: len(text) - len(text.lstrip())]
        return wrap(theme, inline(text.lstrip()), cells, ("", indent))

    def _end_table(self) -> list[str]:
        rows, self._table = self._table, []
        if not rows:
            return []
        if len(rows) < 2 or not _DIVIDER.match(rows[1]):
            return [line for row in rows for line in self._block(row)]
        cells = [[inline(c.strip()) for c in _cells(row)] for row in (rows[0], *rows[2:])]
        columns = max(len(r) for r in cells)
        widths = [0] * columns
        for row in cells:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], sum(width(t) for _, t in cell))
        if sum(widths) + 3 * (columns - 1) > self.cells:
            return [line for row in rows for line in self._block(row)]
        bar = self.theme.paint("grey", " │ ")
        out = []
        for n, row in enumerate(cells):
            shown = []
            for i in range(columns):
                cell = row[i] if i < len(row) else []
                if n == 0:
                    cell = [(f"{s} bold".strip(), t) for s, t in cell]
                pad = widths[i] - sum(width(t) for _, t in cell)
                shown.append(join(self.theme, cell) + " " * pad)
            out.append(bar.join(shown).rstrip())
            if n == 0:
                out.append(self.theme.paint("grey", "─┼─".join("─" * w for w in widths)))
        return out


def _cells(row: str) -> list[str]:
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]
