"""Driving the terminal's renderer the way a model streams: records in, what a person sees out."""

from __future__ import annotations

from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.text import Theme
from auger.records import TextDelta, TextDone


def renderer(cells: int = 60, color: bool = False) -> Renderer:
    """A renderer `cells` wide, colour off unless asked."""
    return Renderer(Theme(color=color), cells=cells)


def stream(r: Renderer, text: str) -> None:
    """Feed `text` as a model streams it: word by word, then `text_done`."""
    start = 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            r.feed(TextDelta(text[start:i]))
            start = i
    r.feed(TextDelta(text[start:]))
    r.feed(TextDone(text))


def lines(r: Renderer) -> list[str]:
    """The finished lines since the last look."""
    return r.take().rstrip("\n").split("\n")


def live_text(r: Renderer) -> str:
    """The live tail as plain text."""
    return "".join(text for _, text in r.live())
