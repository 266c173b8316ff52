"""The `web_search` slot: one tool shape that any search backend plugs into.

auger ships no search engine (each needs an account). An extension or provider supplies one:

    from auger.tools.web_search import SearchResult, search_tool

    def extension(g):
        async def search(query: str, limit: int) -> list[SearchResult]:
            ...  # ask your engine
        g.tool(search_tool(search))

The model always sees the same `web_search(query, limit)` tool and the same result layout,
whichever backend answers, and permission rules name it `web_search`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec

from auger.tools.base import Tool, ToolContext, ToolError, tool

NAME = "web_search"
MAX_LIMIT = 20


class SearchResult(msgspec.Struct, frozen=True):
    """One hit: its title, URL and a snippet of its text."""

    title: str
    url: str
    snippet: str = ""


Backend = Callable[[str, int], Awaitable[Sequence[SearchResult]] | Sequence[SearchResult]]


def format_results(query: str, results: Sequence[SearchResult]) -> str:
    """The results as the model reads them: numbered, one block each."""
    if not results:
        return f"No results for {query!r}."
    blocks = []
    for n, hit in enumerate(results, 1):
        snippet = " ".join(hit.snippet.split())
        blocks.append(f"{n}. {hit.title}\n   {hit.url}" + (f"\n   {snippet}" if snippet else ""))
    return f"Results for {query!r}:\n\n" + "\n\n".join(blocks)


def search_tool(backend: Backend, *, name: str = NAME) -> Tool:
    """A `web_search` tool answered by `backend(query, limit)` (sync or async)."""

    async def web_search(query: str, limit: int = 5, *, ctx: ToolContext) -> str:
        """Search the web. Returns the best matching pages (title, URL, snippet); read one
        with web_fetch.

        Args:
            query: What to search for.
            limit: How many results, 1 to 20.
        """
        if not query.strip():
            raise ToolError("validation_error", "the query is empty")
        if not 1 <= limit <= MAX_LIMIT:
            raise ToolError("validation_error", f"limit must be from 1 to {MAX_LIMIT}")
        found: Any = backend(query, limit)
        if inspect.isawaitable(found):
            found = await found
        results = list(found)[:limit]
        if not all(isinstance(r, SearchResult) for r in results):
            raise ToolError("search_failed", "the search backend returned something unreadable")
        return format_results(query, results)

    made: Tool = tool(web_search)
    return msgspec.structs.replace(made, name=name) if name != NAME else made
