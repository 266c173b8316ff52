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

from auger.commands.markdown import parse
from auger.hosts.terminal.blocks import LISTS, Draw, end_line
from auger.hosts.terminal.text import Theme, clean

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

CODE_CHUNK = 40
"""Lines of an open code block held back before they are let out anyway."""

_CLOSER = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*$")
"""CommonMark's closing code fence (of a block not inside a list or quote)."""
_GROWING = frozenset({"paragraph", "table"})
"""Blocks that may take many lines, each checked on its own (see `_continues`)."""


def _tree(text: str) -> SyntaxTreeNode:
    from markdown_it.tree import SyntaxTreeNode

    return SyntaxTreeNode(parse(text))


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
        self._open: tuple[str, list[str]] | None = None  # the open block: kind, first lines
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
            reread = reread or not self._continues(text)
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

    def _continues(self, line: str) -> bool:
        """Whether `line` only lengthens the open paragraph or table: parsed beside the lines
        that opened it, it is still one block of that kind (a table keeps its header row and
        delimiter; a paragraph its last line)."""
        if self._open is None or not line.strip():
            return False
        kind, first = self._open
        context = first if kind == "table" else self._lines[-1:]
        nodes = _tree("\n".join([*context, line])).children
        whole = (0, len(context) + 1)
        return len(nodes) == 1 and nodes[0].type == kind and tuple(nodes[0].map or ()) == whole

    def _settle(self, final: bool) -> list[str]:
        """Read the lines not shown yet; show each block they finish."""
        self._open = None
        blocks = _tree("\n".join(self._lines)).children
        if not blocks:
            if final:
                self._cut(len(self._lines))
            return []
        *done, last = blocks
        out: list[str] = []
        for node in done:
            out += self._show(node)
        assert last.map is not None
        if final or self._finished(last):
            out += self._show(last)
            self._cut(len(self._lines))
        elif last.type in LISTS and len(last.children) > 1:
            *earlier, latest = last.children
            out += self._show(last, earlier)
            assert latest.map is not None
            self._cut(latest.map[0])
        elif last.type == "fence":
            out += self._gap(last.map[0])
            out.append(self._draw.fence_open(last))
            self._fence = _Fence(self._lines[last.map[0]], last.markup)
            code = self._lines[last.map[0] + 1 :]
            self._cut(len(self._lines))
            self._base -= len(code)
            for line in code:
                out += self._fence_line(line)
        else:
            self._cut(last.map[0])
            if last.type in _GROWING:
                self._open = (last.type, self._lines[:2])
        return out

    def _finished(self, node: SyntaxTreeNode) -> bool:
        """Whether no line to come can change the last block read."""
        assert node.map is not None
        if node.type in ("heading", "hr"):
            return True
        if node.type == "fence":
            start, end = node.map
            return end - start > 1 and _closes(node.markup, self._lines[end - 1])
        # a blank line ends these; the lines after the block's own are blank
        return node.type in ("paragraph", "table", "blockquote") and node.map[1] < len(self._lines)

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

    def _show(self, node: SyntaxTreeNode, items: list[SyntaxTreeNode] | None = None) -> list[str]:
        """The lines of a finished block (or of the finished `items` of an open list)."""
        assert node.map is not None
        out = self._gap(node.map[0])
        if node.type in LISTS:
            shown = node.children if items is None else items
            out += self._draw.items(node, shown, self.cells, number=self._number)
            start = self._number if self._number is not None else int(node.attrs.get("start", 1))
            self._number = start + len(shown) if items is not None else None
            self._end = end_line(shown[-1]) + self._base
        else:
            out += self._draw.block(node, self.cells)
            self._number = None
            self._end = end_line(node) + self._base
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
        node = _tree("\n".join([fence.opener, *fence.held])).children[0]
        return self._draw.code(node)
