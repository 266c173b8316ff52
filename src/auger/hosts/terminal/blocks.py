"""Finished Markdown blocks drawn for the terminal from markdown-it's syntax tree (the parser
`/export` uses): headings, paragraphs, lists, quotes, code, tables and rules as styled lines."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from auger.hosts.terminal.text import Span, Theme, clean, join, width, wrap

if TYPE_CHECKING:
    from markdown_it.tree import SyntaxTreeNode

LISTS = frozenset({"bullet_list", "ordered_list"})
_CONTAINERS = LISTS | {"list_item", "blockquote"}
_HEADING_STYLES = {"h1": "bold underline magenta", "h2": "bold magenta"}
_INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strike"}
_TASK = re.compile(r"\[([ xX])\]\s+")
_ALIGN = re.compile(r"text-align:(left|right|center)")

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


def _with(style: str, more: str) -> str:
    return f"{style} {more}".strip()


def end_line(node: SyntaxTreeNode) -> int:
    """The line after `node`'s last line of content (its trailing blank lines not counted)."""
    while node.type in _CONTAINERS and node.children:
        node = node.children[-1]
    assert node.map is not None
    return node.map[1]


class Draw:
    """Styled lines for finished blocks, `cells` wide."""

    def __init__(self, theme: Theme) -> None:
        self.theme = theme

    def block(self, node: SyntaxTreeNode, cells: int, style: str = "") -> list[str]:
        """One block's lines."""
        kind = node.type
        if kind == "paragraph":
            return self.text(node.children, cells, style)
        if kind == "heading":
            return self.text(
                node.children, cells, _with(style, _HEADING_STYLES.get(node.tag, "bold"))
            )
        if kind in LISTS:
            return self.items(node, node.children, cells, style)
        if kind == "blockquote":
            bar = self.theme.paint("grey", "│ ")
            inner = self.blocks(node.children, cells - 2, _with(style, "italic"))
            return [bar + line for line in inner]
        if kind == "fence":
            opener = self.fence_open(node.markup, node.info)
            return [opener, *self.code(node), self.theme.paint("grey", node.markup)]
        if kind == "code_block":
            return ["    " + line for line in self.code(node)]
        if kind == "hr":
            return [self.theme.paint("grey", "─" * min(cells, 80))]
        if kind == "table":
            return self.table(node, cells, style)
        return [clean(line) for line in node.content.rstrip("\n").split("\n")]

    def blocks(self, nodes: list[SyntaxTreeNode], cells: int, style: str = "") -> list[str]:
        """Blocks one after another, a blank line between two where the source had one."""
        out: list[str] = []
        end = None
        for node in nodes:
            if end is not None and node.map is not None and node.map[0] > end:
                out.append("")
            out += self.block(node, cells, style)
            end = end_line(node)
        return out

    def items(
        self,
        node: SyntaxTreeNode,
        items: list[SyntaxTreeNode],
        cells: int,
        style: str = "",
        number: int | None = None,
    ) -> list[str]:
        """Some items of a list, the first numbered `number` (by default the list's start)."""
        ordered = node.type == "ordered_list"
        n = number if number is not None else int(node.attrs.get("start", 1))
        out: list[str] = []
        end = None
        for item in items:
            assert item.map is not None
            if end is not None and item.map[0] > end:
                out.append("")
            marker = f"{n}{node.markup} " if ordered else (_checkbox(item) or "• ")
            body = self.blocks(item.children, cells - width(marker), style) or [""]
            pad = " " * width(marker)
            out.append(self.theme.paint("yellow", marker) + body[0])
            out += [pad + line if line else line for line in body[1:]]
            n += 1
            end = end_line(item)
        return out

    def text(self, children: list[SyntaxTreeNode], cells: int, style: str) -> list[str]:
        """An inline run (a paragraph's, a heading's), wrapped; its line breaks kept."""
        lines: list[list[Span]] = [[]]
        for child in children:
            self._inline(child.children, style, lines)
        return [row for spans in lines for row in wrap(self.theme, spans, cells)]

    def _inline(self, nodes: list[SyntaxTreeNode], style: str, lines: list[list[Span]]) -> None:
        for node in nodes:
            kind = node.type
            if kind in ("softbreak", "hardbreak"):
                lines.append([])
            elif kind == "code_inline":
                lines[-1].append((_with(style, "cyan"), clean(node.content)))
            elif kind in _INLINE_STYLES:
                self._inline(node.children, _with(style, _INLINE_STYLES[kind]), lines)
            elif kind == "link":
                label = len(lines[-1])
                self._inline(node.children, _with(style, "underline blue"), lines)
                href = str(node.attrs.get("href", ""))
                if href != "".join(text for _, text in lines[-1][label:]):
                    lines[-1].append((_with(style, "grey"), f" ({clean(href)})"))
            elif kind == "image":
                alt = clean(node.content) or "image"
                lines[-1].append((_with(style, "underline blue"), alt))
                lines[-1].append((_with(style, "grey"), f" ({clean(str(node.attrs['src']))})"))
            elif node.children:
                self._inline(node.children, style, lines)
            else:
                # decoded entities can be control characters (`&#13;`): cleaned like the rest
                lines[-1].append((style, clean(node.content)))

    def fence_open(self, markup: str, info: str) -> str:
        """The line that opens a fenced code block, as written."""
        return self.theme.paint("grey", markup + clean(info))

    def code(self, node: SyntaxTreeNode) -> list[str]:
        """A code block's lines, coloured by its language when it has one."""
        lines = node.content.split("\n")
        if lines[-1] == "":
            lines.pop()
        language = node.info.split()[0] if node.info.strip() else ""
        return highlight(self.theme, [clean(line) for line in lines], language)

    def table(self, node: SyntaxTreeNode, cells: int, style: str) -> list[str]:
        """A table with its columns aligned; a table too wide for the screen, a row a line."""
        rows: list[list[list[Span]]] = []
        aligns: list[str] = []
        for section in node.children:
            for tr in section.children:
                row = []
                for cell in tr.children:
                    cell_style = _with(style, "bold") if section.type == "thead" else style
                    lines: list[list[Span]] = [[]]
                    self._inline(cell.children, cell_style, lines)
                    row.append([span for line in lines for span in line])
                    if section.type == "thead":
                        found = _ALIGN.search(str(cell.attrs.get("style", "")))
                        aligns.append(found[1] if found else "left")
                rows.append(row)
        columns = max(len(row) for row in rows)
        widths = [0] * columns
        for row in rows:
            for i, spans in enumerate(row):
                widths[i] = max(widths[i], sum(width(text) for _, text in spans))
        bar = ("grey", " │ ")
        if sum(widths) + 3 * (columns - 1) > cells:
            out = []
            for row in rows:
                spans = [span for i, cell in enumerate(row) for span in ([bar] if i else []) + cell]
                out += wrap(self.theme, spans, cells)
            return out
        out = []
        for n, row in enumerate(rows):
            shown = []
            for i in range(columns):
                spans = row[i] if i < len(row) else []
                room = widths[i] - sum(width(text) for _, text in spans)
                align = aligns[i] if i < len(aligns) else "left"
                left = room if align == "right" else room // 2 if align == "center" else 0
                shown.append(" " * left + join(self.theme, spans) + " " * (room - left))
            out.append(self.theme.paint(*bar).join(shown).rstrip())
            if n == 0:
                out.append(self.theme.paint("grey", "─┼─".join("─" * w for w in widths)))
        return out


def _checkbox(item: SyntaxTreeNode) -> str:
    """`☐ `/`☑ ` for a task item (`- [ ] …`), its `[ ]` taken out of the text; else ``""``."""
    first = item.children[0] if item.children else None
    if first is None or first.type != "paragraph":
        return ""
    words = first.children[0].children
    found = _TASK.match(words[0].content) if words and words[0].type == "text" else None
    if found is None or words[0].token is None:
        return ""
    words[0].token.content = words[0].content[found.end() :]
    return "☐ " if found[1] == " " else "☑ "


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
