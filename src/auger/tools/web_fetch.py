"""The `web_fetch` tool: a web page as Markdown (HTML converted by `markdownify`), size-capped."""

from __future__ import annotations

from typing import Any

from auger._version import __version__
from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.truncate import MAX_BYTES, format_size, head

MAX_DOWNLOAD = 5 * 1024 * 1024  # bytes of a page read at most
TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown", "text/csv")
HTML_TYPES = ("text/html", "application/xhtml+xml")
# elements whose content is never text a reader sees
DROPPED = ("script", "style", "noscript", "template", "iframe", "svg", "canvas", "head")


def to_markdown(html: bytes | str) -> tuple[str, str]:
    """(title, Markdown) of an HTML page; scripts, styles and other non-text are dropped."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for element in soup(DROPPED):
        element.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-", escape_misc=False).convert_soup(soup)
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:  # at most one blank line in a row
        if line or (out and out[-1]):
            out.append(line)
    return title, "\n".join(out).strip()


def _decode(body: bytes, content_type: str) -> str:
    charset = "utf-8"
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    try:
        return body.decode(charset, errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


async def web_fetch(url: str, *, ctx: ToolContext) -> str:
    """Fetch a web page as Markdown (cut at 50 KB).

    Args:
        url: A full http(s) URL.
    """
    from auger.llm.http import FetchError, get  # the HTTP client only when a page is fetched

    if not url.startswith(("http://", "https://")):
        raise ToolError("validation_error", f"{url!r} is not an http:// or https:// URL")
    headers = {
        "user-agent": f"auger/{__version__} (web_fetch)",
        "accept": "text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, */*;q=0.1",
    }
    try:
        page = await get(url, headers=headers, max_bytes=MAX_DOWNLOAD, env=ctx.env)
    except FetchError as exc:
        raise ToolError("network", f"cannot fetch {url}: {exc}") from None
    if page.status >= 400:
        raise ToolError("http_error", f"{url} answered HTTP {page.status}")
    content_type = page.headers.get("content-type", "").lower()
    kind = content_type.split(";")[0].strip()
    if kind in HTML_TYPES or (not kind and page.body.lstrip()[:1] == b"<"):
        title, text = to_markdown(page.body)
    elif kind in TEXT_TYPES or kind.endswith(("+json", "/json", "+xml", "/xml")):
        title, text = "", _decode(page.body, content_type)
    else:
        raise ToolError(
            "unsupported_content",
            f"{url} is {kind or 'of an unknown type'} ({format_size(len(page.body))}), "
            "not a page web_fetch can show",
        )
    heading = f"URL: {page.url}\n" + (f"Title: {title}\n" if title else "") + "\n"
    cut = head(text, max_lines=100_000, max_bytes=MAX_BYTES)
    notes = []
    if cut.truncated:
        notes.append(f"[page cut at {format_size(MAX_BYTES)} of Markdown]")
    if page.truncated:
        notes.append(f"[download stopped at {format_size(MAX_DOWNLOAD)}]")
    return heading + cut.text + ("\n\n" + " ".join(notes) if notes else "")


TOOL = tool(web_fetch)


def extension(g: Any) -> None:
    """Registers `web_fetch`."""
    g.tool(TOOL)
