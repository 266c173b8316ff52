"""The one Markdown parser: `/export` renders with it and the terminal draws from its tokens, so
both read a reply alike."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@cache
def parser() -> MarkdownIt:
    """CommonMark with tables and strike-through; raw HTML stays text, never markup (a reply is
    untrusted output). Imported on first use: markdown-it costs ~30 ms to import."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def parse(text: str) -> list[Token]:
    """The block tokens of `text`."""
    return parser().parse(text)
