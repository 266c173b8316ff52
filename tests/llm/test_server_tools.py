"""Web search served by the provider itself (`--search`), through `auger -p --json` against
local stand-ins speaking each format as documented (the pages in llm/server_tools.py): the
query, the sources and the citations stream as records, the search is priced, and the search
goes back in the next request's history. Off by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.server import FakeServer, Reply, sse

URL = "https://example.com/auger"
TITLE = "auger, a coding agent"
PRICES = {"input": 3.0, "output": 15.0}  # USD per million tokens, set for the test


def messages_search() -> bytes:
    """An Anthropic Messages stream that searched once and cites the result."""
    search = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [
            {
                "type": "web_search_result",
                "url": URL,
                "title": TITLE,
                "encrypted_content": "enc-1",
                "page_age": "1 day",
            }
        ],
    }
    citation = {
        "type": "web_search_result_location",
        "url": URL,
        "title": TITLE,
        "encrypted_index": "idx-1",
        "cited_text": "auger streams every step as an event",
    }
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m"}
    message["usage"] = {"input_tokens": 1000, "output_tokens": 1}

    def block(index: int, content: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_start", {
            "type": "content_block_start",
            "index": index,
            "content_block": content,
        }

    def delta(index: int, content: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "content_block_delta", {
            "type": "content_block_delta",
            "index": index,
            "delta": content,
        }

    def stop(index: int) -> tuple[str, dict[str, Any]]:
        return "content_block_stop", {"type": "content_block_stop", "index": index}

    usage = {"output_tokens": 100, "server_tool_use": {"web_search_requests": 1}}
    return sse(
        ("message_start", {"type": "message_start", "message": message}),
        block(0, search),
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "auger agent"}'}),
        stop(0),
        block(1, result),
        stop(1),
        block(2, {"type": "text", "text": "", "citations": []}),
        delta(2, {"type": "citations_delta", "citation": citation}),
        delta(2, {"type": "text_delta", "text": "auger streams its steps."}),
        stop(2),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        ),
        ("message_stop", {"type": "message_stop"}),
    )


def responses_search() -> bytes:
    """An OpenAI Responses stream that searched once and cites the result."""
    call = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    done = call | {
        "status": "completed",
        "action": {
            "type": "search",
            "query": "auger agent",
            "sources": [{"type": "url", "url": URL}],
        },
    }
    annotation = {
        "type": "url_citation",
        "start_index": 0,
        "end_index": 5,
        "url": URL,
        "title": TITLE,
    }
    text = "auger streams its steps."
    usage = {
        "input_tokens": 1000,
        "output_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
    }

    def ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, **fields}

    return sse(
        ev("response.output_item.added", output_index=0, item=call),
        ev("response.web_search_call.in_progress", output_index=0, item_id="ws_1"),
        ev("response.web_search_call.searching", output_index=0, item_id="ws_1"),
        ev("response.web_search_call.completed", output_index=0, item_id="ws_1"),
        ev("response.output_item.done", output_index=0, item=done),
        ev("response.output_text.delta", output_index=1, content_index=0, delta=text),
        ev(
            "response.output_text.annotation.added",
            output_index=1,
            content_index=0,
            annotation_index=0,
            annotation=annotation,
        ),
        ev("response.output_text.done", output_index=1, content_index=0, text=text),
        ev("response.completed", response={"status": "completed", "usage": usage}),
    )


CASES = {"messages": messages_search, "responses": responses_search}


def configure(project: Project, server: FakeServer, api: str, **settings: Any) -> None:
    base = server.url if api == "messages" else f"{server.url}/v1"
    provider = {"api": api, "base_url": base, "api_key_env": "LOCAL_KEY"}
    provider["models"] = {"test-model": PRICES}
    project.settings({"model": "local/test-model", "providers": {"local": provider}} | settings)
    project.env["LOCAL_KEY"] = "sk-local-test"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def run(project: Project, *args: str) -> list[dict[str, Any]]:
    done = project.run("-p", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json_lines(done.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("api", CASES)
def test_a_server_side_search_streams_its_query_sources_and_citations_and_is_priced(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    fake_server.queue(Reply(body=CASES[api]()), Reply(body=CASES[api]()))
    records = run(project, "--search", "what is auger?")
    body = fake_server.requests[0].body
    if api == "messages":
        assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 5} in body["tools"]
    else:
        assert {"type": "web_search"} in body["tools"]
        assert "web_search_call.action.sources" in body["include"]
    [call] = [r for r in records if r["type"] == "web_search_call"]
    assert call["query"] == "auger agent"
    [found] = [r for r in records if r["type"] == "web_search_results"]
    assert found["call_id"] == call["call_id"]
    assert [s["url"] for s in found["sources"]] == [URL]
    [cited] = [r for r in records if r["type"] == "citation"]
    assert (cited["url"], cited["title"]) == (URL, TITLE)
    tokens = (1000 * PRICES["input"] + 100 * PRICES["output"]) / 1_000_000
    end = records[-1]
    assert end["type"] == "turn_end" and end["text"] == "auger streams its steps."
    assert end["usage"]["cost"] == pytest.approx(tokens + 0.01)  # $10 per 1,000 searches

    run(project, "-c", "--search", "and then?")
    history = json.dumps(fake_server.requests[1].body)
    if api == "messages":
        assert '"type": "server_tool_use"' in history and '"encrypted_content": "enc-1"' in history
    else:
        assert '"type": "web_search_call"' in history and '"query": "auger agent"' in history


@pytest.mark.slow
@pytest.mark.parametrize("api", CASES)
def test_search_is_off_unless_asked_and_on_with_the_setting(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    fake_server.queue(Reply(body=CASES[api]()), Reply(body=CASES[api]()))
    run(project, "hello")
    assert "web_search" not in json.dumps(fake_server.requests[0].body.get("tools", []))
    configure(project, fake_server, api, tools={"web_search": True})
    run(project, "hello")
    assert "web_search" in json.dumps(fake_server.requests[1].body["tools"])


@pytest.mark.slow
def test_a_format_without_search_says_so_and_sends_none(
    project: Project, fake_server: FakeServer
) -> None:
    configure(project, fake_server, "chat-completions")
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m"}
    text = chunk | {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]}
    stop = chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    fake_server.queue(Reply(body=sse(text, stop, done=True)))
    records = run(project, "--search", "hello")
    [notice] = [r for r in records if r["type"] == "notify"]
    assert notice["level"] == "warning"
    assert "local/test-model (chat-completions) has no search of its own" in notice["message"]
    assert "web_search" not in json.dumps(fake_server.requests[0].body)
