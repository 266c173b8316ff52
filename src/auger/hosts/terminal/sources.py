"""Web searches as the terminal shows them: a line per search, and the sources the answer
cites (else those the searches found) listed under it."""

from __future__ import annotations

from typing import Any

MAX_SOURCES = 8


class Sources:
    """What this turn's searches found and its answer cited."""

    def __init__(self) -> None:
        self.found: dict[str, str] = {}
        self.cited: dict[str, str] = {}

    def searched(self, record: Any) -> str:
        """A search ran: its line."""
        return f"⌕ searched the web: {record.query}" if record.query else "⌕ searched the web"

    def results(self, record: Any) -> str | None:
        """A search's results; a line only when it failed."""
        for source in record.sources:
            self.found.setdefault(source["url"], source.get("title", ""))
        return f"⌕ the search failed: {record.error}" if record.error else None

    def citation(self, record: Any) -> None:
        """The answer cites a source."""
        self.cited.setdefault(record.url, record.title)

    def flush(self) -> list[str]:
        """The lines under the answer (none without searches); forgets them."""
        shown = self.cited or self.found
        lines = [f"  {title or url} — {url}" for url, title in list(shown.items())[:MAX_SOURCES]]
        if len(shown) > MAX_SOURCES:
            lines.append(f"  … and {len(shown) - MAX_SOURCES} more")
        self.found, self.cited = {}, {}
        return ["Sources:", *lines] if lines else []
