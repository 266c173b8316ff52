"""Server-side web search: the tool specs each wire format sends, the records a search streams
as (its query, its sources, the citations in the answer), and its price.

The provider runs these searches itself with the key the user already has; nothing runs
locally. Formats:

- Anthropic Messages: `{"type": "web_search_20250305", "name": "web_search", "max_uses": N}`;
  a `server_tool_use` block (the query), a `web_search_tool_result` block (the sources), text
  with `citations` (`citations_delta` when streamed), `usage.server_tool_use.web_search_requests`;
  $10 per 1,000 searches on top of tokens —
  https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
- OpenAI Responses: `{"type": "web_search"}`, with `include: ["web_search_call.action.sources"]`;
  a `web_search_call` output item (`action.query`, `action.sources`), `url_citation`
  annotations (`response.output_text.annotation.added` when streamed); $10 per 1,000 calls
  plus the search content tokens at the model's rates —
  https://platform.openai.com/docs/guides/tools-web-search and
  https://platform.openai.com/docs/pricing
"""

from __future__ import annotations

from typing import Any, ClassVar

from auger.llm.provider import Model, Request
from auger.llm.records import Record
from auger.llm.usage import Usage

WEB_SEARCH = "web_search"
MAX_USES = 5
"""Searches one Anthropic response may run (its `max_uses`)."""
PRICE_PER_SEARCH = {"messages": 10 / 1000, "responses": 10 / 1000}
"""USD per search, by wire format (the pages above)."""
SEARCH_APIS = frozenset(PRICE_PER_SEARCH)
"""The wire formats whose providers search the web themselves."""


def no_search_notice(model: Model) -> str:
    """What a user who asked for search is told when the model's format has none."""
    return (
        f"web search: {model.id} ({model.api}) has no search of its own; an extension can "
        "fill the web_search tool (see auger.tools.web_search)"
    )


class WebSearchCall(Record, frozen=True):
    """The provider searched the web for `query` (its own tool call `call_id`)."""

    type: ClassVar[str] = "web_search_call"
    call_id: str
    query: str


class WebSearchResults(Record, frozen=True):
    """What one search found: `sources`, each with `url` and `title`; `error` when it failed."""

    type: ClassVar[str] = "web_search_results"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"error"})
    call_id: str
    sources: tuple[dict[str, str], ...]
    error: str | None = None


class Citation(Record, frozen=True):
    """The answer cites `url` (`title`), quoting `cited_text` when the provider says it."""

    type: ClassVar[str] = "citation"
    url: str
    title: str = ""
    cited_text: str = ""


SEARCH_RECORDS: tuple[type[Record], ...] = (WebSearchCall, WebSearchResults, Citation)


def wants_search(request: Request) -> bool:
    """Whether `request` offers the provider's own web search."""
    return WEB_SEARCH in request.server_tools


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _source(raw: Any) -> dict[str, str] | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("url"), str):
        return None
    return {"url": raw["url"], "title": _text(raw.get("title"))}


def search_cost(model: Model, searches: int) -> Usage:
    """The price of `searches` searches, as a usage to add (unknown for an unpriced model)."""
    if searches <= 0:
        return model.no_usage
    if model.pricing is None:
        return Usage()
    return Usage(cost=searches * PRICE_PER_SEARCH.get(model.api, 0.0))


# -- Anthropic Messages -----------------------------------------------------------------------


def anthropic_tools(request: Request) -> list[dict[str, Any]]:
    """The server tool specs to add to a Messages request's `tools`."""
    if not wants_search(request):
        return []
    return [{"type": "web_search_20250305", "name": WEB_SEARCH, "max_uses": MAX_USES}]


def anthropic_block(block: dict[str, Any]) -> list[Record]:
    """The records of one finished server block (`server_tool_use`, `web_search_tool_result`)."""
    kind = block.get("type")
    if kind == "server_tool_use" and block.get("name") == WEB_SEARCH:
        given = block.get("input")
        query = _text(given.get("query")) if isinstance(given, dict) else ""
        return [WebSearchCall(_text(block.get("id")), query)]
    if kind == "web_search_tool_result":
        content = block.get("content")
        call_id = _text(block.get("tool_use_id"))
        if isinstance(content, dict):  # {"type": "web_search_tool_result_error", "error_code"}
            return [WebSearchResults(call_id, (), _text(content.get("error_code")) or "error")]
        found = [_source(r) for r in content] if isinstance(content, list) else []
        return [WebSearchResults(call_id, tuple(s for s in found if s is not None))]
    return []


def anthropic_citation(citation: Any) -> list[Record]:
    """The record of one `citations_delta` citation (a web search result location)."""
    if not isinstance(citation, dict) or not isinstance(citation.get("url"), str):
        return []
    return [
        Citation(citation["url"], _text(citation.get("title")), _text(citation.get("cited_text")))
    ]


def anthropic_searches(usage: dict[str, Any]) -> int:
    """How many searches a response's usage reports."""
    used = usage.get("server_tool_use")
    count = used.get("web_search_requests") if isinstance(used, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


# -- OpenAI Responses -------------------------------------------------------------------------


def responses_tools(request: Request) -> list[dict[str, Any]]:
    """The server tool specs to add to a Responses request's `tools`."""
    return [{"type": WEB_SEARCH}] if wants_search(request) else []


def responses_item(item: dict[str, Any]) -> list[Record]:
    """The records of one finished `web_search_call` output item."""
    action = item.get("action")
    action = action if isinstance(action, dict) else {}
    call_id = _text(item.get("id"))
    out: list[Record] = [WebSearchCall(call_id, _text(action.get("query")))]
    raw = action.get("sources")
    found = [_source(s) for s in raw] if isinstance(raw, list) else []
    out.append(WebSearchResults(call_id, tuple(s for s in found if s is not None)))
    return out


def responses_kept(item: dict[str, Any]) -> dict[str, Any]:
    """What of a `web_search_call` item goes back in later input (the sources stay out)."""
    action = item.get("action")
    kept = {"type": "web_search_call", "id": item.get("id"), "status": item.get("status")}
    if isinstance(action, dict):
        kept["action"] = {k: v for k, v in action.items() if k != "sources"}
    return kept


def responses_annotation(annotation: Any) -> list[Record]:
    """The record of one `url_citation` annotation."""
    if not isinstance(annotation, dict) or annotation.get("type") != "url_citation":
        return []
    if not isinstance(annotation.get("url"), str):
        return []
    return [Citation(annotation["url"], _text(annotation.get("title")))]


def responses_searches(items: list[dict[str, Any]]) -> int:
    """How many billed searches (`search` actions) a response's items ran."""
    count = 0
    for item in items:
        action = item.get("action")
        kind = action.get("type") if isinstance(action, dict) else "search"
        count += kind == "search"
    return count
