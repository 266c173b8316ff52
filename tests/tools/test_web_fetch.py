"""`web_fetch` against a real HTTP server on 127.0.0.1, and the `web_search` slot."""

from __future__ import annotations

from pathlib import Path

from auger.llm.scripted import Call as ModelCall
from auger.llm.scripted import Reply as ModelReply
from auger.llm.scripted import ScriptedProvider
from auger.records import AfterToolCall
from auger.tools.web_fetch import TOOL, to_markdown
from auger.tools.web_search import SearchResult, search_tool
from support.runtime import make_runtime
from support.server import FakeServer, Reply
from tools.conftest import Call

PAGE = b"""<!doctype html><html><head><title>The Docs</title><style>p{color:red}</style>
<script>var secret = "do not show";</script></head>
<body><nav><a href="/">Home</a></nav><h1>Install</h1>
<p>Run <code>pip install x</code> and <a href="https://example.com/more">read more</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""


def html(body: bytes, status: int = 200, **headers: str) -> Reply:
    return Reply(status, body, {"content-type": "text/html; charset=utf-8", **headers})


async def test_a_page_comes_back_as_markdown(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(html(PAGE))
    result = await call(TOOL, url=f"{fake_server.url}/docs")
    assert not result.is_error, result.content
    text = result.content
    assert text.startswith(f"URL: {fake_server.url}/docs\nTitle: The Docs\n\n")
    assert "# Install" in text
    assert "Run `pip install x` and [read more](https://example.com/more)." in text
    assert "- one\n- two" in text
    assert "secret" not in text and "color:red" not in text
    seen = fake_server.requests[0]
    assert (seen.method, seen.path) == ("GET", "/docs")
    assert seen.headers["user-agent"].startswith("auger/")


async def test_redirects_are_followed(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(Reply(302, b"", {"location": "/new"}), html(b"<p>moved here</p>"))
    result = await call(TOOL, url=f"{fake_server.url}/old")
    assert result.content.startswith(f"URL: {fake_server.url}/new\n")
    assert "moved here" in result.content


async def test_plain_text_is_kept_as_it_is(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(Reply(200, b"# raw *markdown*\n", {"content-type": "text/markdown"}))
    result = await call(TOOL, url=f"{fake_server.url}/README.md")
    assert result.content.endswith("\n# raw *markdown*\n")


async def test_a_long_page_is_cut(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(html(b"<p>" + b"word " * 40_000 + b"</p>"))
    result = await call(TOOL, url=fake_server.url)
    assert len(result.content.encode()) < 52 * 1024
    assert result.content.endswith("[page cut at 50.0 KB of Markdown]")


async def test_an_http_error_is_a_tool_error(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(html(b"nope", status=404))
    result = await call(TOOL, url=f"{fake_server.url}/gone")
    assert (result.error_type, result.content) == (
        "http_error",
        f"{fake_server.url}/gone answered HTTP 404",
    )


async def test_binary_content_is_refused(fake_server: FakeServer, call: Call) -> None:
    fake_server.queue(Reply(200, b"%PDF-1.7 ...", {"content-type": "application/pdf"}))
    result = await call(TOOL, url=f"{fake_server.url}/a.pdf")
    assert result.error_type == "unsupported_content" and "application/pdf" in result.content


async def test_a_closed_port_is_a_network_error(call: Call) -> None:
    with FakeServer() as server:
        url = server.url
    result = await call(TOOL, url=url)
    assert result.error_type == "network" and result.content.startswith(f"cannot fetch {url}")


async def test_only_http_urls(call: Call) -> None:
    result = await call(TOOL, url="file:///etc/passwd")
    assert result.error_type == "validation_error"


def test_to_markdown_keeps_tables_and_code_blocks() -> None:
    title, text = to_markdown(
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "<pre><code>x = 1\ny = 2</code></pre>"
    )
    assert title == ""
    assert "| a | b |" in text and "| 1 | 2 |" in text
    assert "```\nx = 1\ny = 2\n```" in text


async def test_web_fetch_is_a_default_tool_the_model_can_call(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    fake_server.queue(html(b"<h2>Hello</h2>"))
    provider = ScriptedProvider(
        [ModelReply.of(ModelCall("web_fetch", {"url": fake_server.url})), ModelReply.of("ok")]
    )
    rt = make_runtime(tmp_path, provider, bundled=True)
    records = [r async for r in rt.prompt("fetch it")]
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert after.tool == "web_fetch" and "## Hello" in after.result.content


async def test_an_extension_supplies_web_search(tmp_path: Path) -> None:
    asked: list[tuple[str, int]] = []

    async def engine(query: str, limit: int) -> list[SearchResult]:
        asked.append((query, limit))
        return [SearchResult("auger", "https://example.com/auger", "A coding\n agent.")]

    def extension(g) -> None:
        g.tool(search_tool(engine))

    call = ModelCall("web_search", {"query": "coding agents", "limit": 3})
    provider = ScriptedProvider([ModelReply.of(call), ModelReply.of("found")])
    rt = make_runtime(tmp_path, provider, bundled=True, extensions=[extension])
    assert "web_search" in rt.tools
    records = [r async for r in rt.prompt("search")]
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert asked == [("coding agents", 3)]
    assert after.result.content == (
        "Results for 'coding agents':\n\n1. auger\n   https://example.com/auger\n   A coding agent."
    )


async def test_without_a_backend_there_is_no_web_search(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    assert "web_search" not in rt.tools and "web_fetch" in rt.tools
