"""Markdown drawn as it streams: finished lines are read with markdown-it (the parser `/export`
uses), each block is drawn once it is finished and never again, and the open block stays in the
live tail as plain text. A long code block is let out in chunks while it is still open.

Only the open block is read again as lines arrive, so drawing a long reply stays linear: a line
that merely continues an open paragraph or table is recognised by parsing it beside the lines
that opened the block, and the lines of an open code block are only checked for its closing
fence."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from auger.commands import blocks, read_inline
from auger.hosts.terminal.blocks import LISTS, Draw, end_line
from auger.hosts.terminal.text import Theme, clean

if TYPE_CHECKING:
    from markdown_it.token import Token
    from markdown_it.tree import SyntaxTreeNode

CODE_CHUNK = 40
"""Lines of an open code block held back before they are let out anyway."""

_CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
"""CommonMark's closing code fence (of a block not inside a list or quote)."""
_GROWING = frozenset({"paragraph", "table"})
"""Blocks that may take many lines, each checked on its own (see `_changes`)."""


def _tree(tokens: list[Token], unread: int | None = None) -> SyntaxTreeNode:
    """The syntax tree of block `tokens`, their inline content read (but from `unread` on)."""
    from markdown_it.tree import SyntaxTreeNode

    read_inline(tokens[:unread])
    return SyntaxTreeNode(tokens)


def _closes(markup: str, line: str) -> bool:
    found = _CLOSER.match(line)
    return found is not None and found[1][0] == markup[0] and len(found[1]) >= len(markup)


class _Fence:
    """A code block at the top level, open: its opening line is shown, its code held."""

    def __init__(self, opener: str, markup: str) -> None:
        self.opener = opener
        self.markup = markup
        self.held: list[str] = []


class Markdown:
    """One reply's Markdown, fed finished lines; returns the lines to show."""

    def __init__(self, theme: Theme, cells: int) -> None:
        self.theme = theme
        self.cells = cells
        self._draw = Draw(theme)
        self._lines: list[str] = []  # the source lines not shown yet
        self._base = 0  # the reply's line number of `_lines[0]`
        self._end = -1  # the line after the last block shown; -1 before the first
        self._number: int | None = None  # the next item's number, a list shown in part
        self._open = ""  # the kind of the open block read last ("" when none is)
        self._fence: _Fence | None = None

    def pending(self) -> list[str]:
        """Lines read but not shown yet (the open block)."""
        return self._fence.held if self._fence is not None else self._lines

    def lines(self, new: list[str]) -> list[str]:
        """Take finished lines; the styled lines of the blocks they finish (maybe none yet)."""
        out: list[str] = []
        reread = False
        for raw in new:
            text = clean(raw.rstrip("\r"))
            if self._fence is not None:
                out += self._fence_line(text)
                continue
            reread = reread or self._changes(text)
            self._lines.append(text)
        if reread:
            out += self._settle(final=False)
        return out

    def end(self) -> list[str]:
        """The reply is over: show what was held back."""
        fence, self._fence = self._fence, None
        if fence is not None:
            return self._code(fence) if fence.held else []
        return self._settle(final=True)

    # -- reading -------------------------------------------------------------------------

    def _changes(self, line: str) -> bool:
        """Whether `line` may finish or change the open block (else it is only held).

        A blank line ends an open paragraph, table or quote, and changes nothing else. A line
        that only lengthens an open paragraph or table is one that, read beside the lines that
        opened it (a table's header row and delimiter, a paragraph's last line), still makes
        one block of that kind."""
        kind = self._open
        if not line.strip():
            return kind in ("paragraph", "table", "blockquote")
        if kind not in _GROWING:
            return True
        context = self._lines[:2] if kind == "table" else self._lines[-1:]
        read = blocks("\n".join([*context, line]))
        top = [t for t in read if t.level == 0 and t.nesting >= 0]
        whole = [0, len(context) + 1]
        return not (len(top) == 1 and top[0].type == f"{kind}_open" and top[0].map == whole)

    def _settle(self, final: bool) -> list[str]:
        """Read where the blocks of the lines not shown yet end; show each finished one."""
        self._open = ""
        tokens = blocks("\n".join(self._lines))
        top = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0]
        if not top:
            self._cut(len(self._lines) if final else 0)
            return []
        last = tokens[top[-1]]
        assert last.map is not None
        start = last.map[0]
        kind = last.type.removesuffix("_open")
        if final or self._finished(kind, last):
            return self._show(tokens, len(tokens), len(self._lines))
        if kind in LISTS:
            after = range(top[-1], len(tokens))
            items = [i for i in after if tokens[i].level == 1 and tokens[i].nesting == 1]
            if len(items) > 1:
                latest = tokens[items[-1]]
                assert latest.map is not None
                return self._show(tokens, len(tokens), latest.map[0], open_item=items[-1])
        out = self._show(tokens, top[-1], start)
        if kind == "fence":
            out += self._gap(0)
            out.append(self._draw.fence_open(last.markup, last.info))
            self._fence = _Fence(self._lines[0], last.markup)
            code = self._lines[1:]
            self._lines, self._base = [], self._base + 1
            for line in code:
                out += self._fence_line(line)
        else:
            self._open = kind
        return out

    def _finished(self, kind: str, token: Token) -> bool:
        """Whether no line to come can change the last block read."""
        assert token.map is not None
        start, end = token.map
        if kind in ("heading", "hr"):
            return True
        if kind == "fence":
            return end - start > 1 and _closes(token.markup, self._lines[end - 1])
        # a blank line ends these; the lines after the block's own are blank
        return kind in ("paragraph", "table", "blockquote") and end < len(self._lines)

    def _cut(self, count: int) -> None:
        """Drop the first `count` lines (they are shown), and the blank lines after them."""
        while count < len(self._lines) and not self._lines[count].strip():
            count += 1
        del self._lines[:count]
        self._base += count

    # -- drawing -------------------------------------------------------------------------

    def _gap(self, start: int) -> list[str]:
        """A blank line before a block at `start` when the source has one there."""
        return [""] if 0 <= self._end < start + self._base else []

    def _show(
        self, tokens: list[Token], upto: int, count: int, open_item: int | None = None
    ) -> list[str]:
        """Draw the blocks of `tokens[:upto]` and drop their `count` lines; with `open_item`
        (where the last item of the last block, a list, begins), that item is still open and
        only the list's other items are drawn."""
        out: list[str] = []
        nodes = _tree(tokens[:upto], open_item).children if upto else []
        for node in nodes:
            assert node.map is not None
            out += self._gap(node.map[0])
            if node.type in LISTS:
                more = open_item is not None and node is nodes[-1]
                items = node.children[:-1] if more else node.children
                start = int(node.attrs.get("start", 1)) if self._number is None else self._number
                out += self._draw.items(node, items, self.cells, number=start)
                self._number = start + len(items) if more else None
                self._end = end_line(items[-1]) + self._base
            else:
                out += self._draw.block(node, self.cells)
                self._number = None
                self._end = end_line(node) + self._base
        self._cut(count)
        return out

    def _fence_line(self, text: str) -> list[str]:
        fence = self._fence
        assert fence is not None
        self._base += 1
        if _closes(fence.markup, text):
            out = self._code(fence) if fence.held else []
            out.append(self.theme.paint("grey", fence.markup))
            self._fence = None
            self._end = self._base
            return out
        fence.held.append(text)
        if len(fence.held) < CODE_CHUNK:
            return []
        out = self._code(fence)
        fence.held = []
        return out

    def _code(self, fence: _Fence) -> list[str]:
        """The held lines of an open code block, read under its opening line and drawn."""
        node = _tree(blocks("\n".join([fence.opener, *fence.held]))).children[0]
        return self._draw.code(node)
