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


def blocks(text: str) -> list[Token]:
    """The block tokens of `text` alone, its inline content left unread (a fifth of the cost):
    enough to tell where each block starts and ends. `text` has no NUL and no CR (markdown-it's
    normalising step is skipped)."""
    md = parser()
    tokens: list[Token] = []
    md.block.parse(text, md, {}, tokens)
    return tokens


def read_inline(tokens: list[Token]) -> list[Token]:
    """`tokens` from `blocks` with their inline content read too, as a whole parse reads it."""
    from markdown_it.rules_core import StateCore

    md = parser()
    state = StateCore("", md, {}, tokens)
    for rule in md.core.ruler.getRules(""):
        if rule.__name__ not in ("normalize", "block"):
            rule(state)
    return tokens
