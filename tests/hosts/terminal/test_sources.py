"""The provider's web searches in the terminal: a line per search, the cited sources under the
answer (those found when nothing is cited), and a failed search said so."""

from __future__ import annotations

from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.text import Theme
from auger.llm.server_tools import Citation, WebSearchCall, WebSearchResults
from auger.llm.usage import Usage
from auger.records import TextDelta, TextDone, TurnEnd

FOUND = ({"url": "https://a.example", "title": "A"}, {"url": "https://b.example", "title": ""})


def shown(*records: object) -> str:
    renderer = Renderer(Theme(color=False), cells=80)
    for record in records:
        renderer.feed(record)
    return renderer.take()


def test_the_cited_sources_are_listed_under_the_answer() -> None:
    out = shown(
        WebSearchCall("s1", "auger agent"),
        WebSearchResults("s1", FOUND),
        TextDelta("It streams."),
        Citation("https://a.example", "A", "it streams"),
        TextDone("It streams."),
        TurnEnd("completed", Usage()),
    )
    assert "⌕ searched the web: auger agent" in out
    assert out.index("It streams.") < out.index("Sources:\n  A — https://a.example")
    assert "b.example" not in out


def test_without_citations_the_sources_found_are_listed_and_a_failure_is_said() -> None:
    out = shown(
        WebSearchCall("s1", "x"),
        WebSearchResults("s1", FOUND),
        WebSearchResults("s2", (), "max_uses_exceeded"),
        TurnEnd("completed", Usage()),
    )
    assert "Sources:\n  A — https://a.example\n  https://b.example — https://b.example" in out
    assert "⌕ the search failed: max_uses_exceeded" in out
