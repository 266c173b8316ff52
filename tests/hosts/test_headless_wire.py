"""`auger -p` end to end against a local HTTP server speaking each of the three wire formats."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.server import FakeServer, Reply, sse

FORMATS = ("messages", "responses", "chat-completions")


def text_reply(api: str, text: str) -> bytes:
    """A streamed answer of `text` in the wire format `api`."""
    if api == "messages":
        return sse(
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "content": [],
                        "model": "m",
                        "stop_reason": None,
                        "usage": {"input_tokens": 12, "output_tokens": 1},
                    },
                },
            ),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 4},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        )
    if api == "responses":
        item = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return sse(
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": {"id": "resp_1", "status": "in_progress", "output": []},
                },
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "status": "in_progress", "content": []},
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_1",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                },
            ),
            (
                "response.output_text.done",
                {
                    "type": "response.output_text.done",
                    "item_id": "msg_1",
                    "output_index": 0,
                    "content_index": 0,
                    "text": text,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        "id": "resp_1",
                        "status": "completed",
                        "output": [item],
                        "usage": {
                            "input_tokens": 12,
                            "output_tokens": 4,
                            "input_tokens_details": {"cached_tokens": 0},
                            "output_tokens_details": {"reasoning_tokens": 0},
                            "total_tokens": 16,
                        },
                    },
                },
            ),
        )
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return sse(
        chunk
        | {
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}
            ]
        },
        chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        chunk
        | {
            "choices": [],
            "usage": {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16},
        },
        done=True,
    )


def tool_reply(api: str, call_id: str, name: str, args: dict[str, Any]) -> bytes:
    """A streamed tool call in the wire format `api`."""
    raw = json.dumps(args)
    if api == "messages":
        return sse(
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_2",
                        "type": "message",
                        "role": "assistant",
                        "content": [],
                        "model": "m",
                        "stop_reason": None,
                        "usage": {"input_tokens": 12, "output_tokens": 1},
                    },
                },
            ),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": raw},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use"},
                    "usage": {"output_tokens": 9},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        )
    if api == "responses":
        item = {
            "id": "fc_1",
            "type": "function_call",
            "status": "completed",
            "call_id": call_id,
            "name": name,
            "arguments": raw,
        }
        return sse(
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": {"id": "resp_2", "status": "in_progress", "output": []},
                },
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "status": "in_progress", "arguments": ""},
                },
            ),
            (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "delta": raw,
                },
            ),
            (
                "response.function_call_arguments.done",
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "arguments": raw,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        "id": "resp_2",
                        "status": "completed",
                        "output": [item],
                        "usage": {
                            "input_tokens": 12,
                            "output_tokens": 9,
                            "input_tokens_details": {"cached_tokens": 0},
                            "output_tokens_details": {"reasoning_tokens": 0},
                            "total_tokens": 21,
                        },
                    },
                },
            ),
        )
    chunk = {"id": "c2", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return sse(
        chunk
        | {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }
                        ],
                    },
                    "finish_reason": None,
                }
            ]
        },
        chunk
        | {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": raw}}]},
                    "finish_reason": None,
                }
            ]
        },
        chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        chunk
        | {
            "choices": [],
            "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21},
        },
        done=True,
    )


def configure(project: Project, server: FakeServer, api: str) -> None:
    base = server.url if api == "messages" else f"{server.url}/v1"
    project.settings(
        {
            "model": "local/test-model",
            "providers": {"local": {"api": api, "base_url": base, "api_key_env": "LOCAL_KEY"}},
            "retry": {"base_delay": 0.01},
        }
    )
    project.env["LOCAL_KEY"] = "sk-local-test"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


@pytest.mark.parametrize("api", FORMATS)
def test_tool_call_round_trip(project: Project, fake_server: FakeServer, api: str) -> None:
    configure(project, fake_server, api)
    (project.root / "notes.txt").write_text("hello from notes\n")
    fake_server.queue(
        Reply(body=tool_reply(api, "call_1", "read", {"path": "notes.txt"})),
        Reply(body=text_reply(api, "The file says hello.")),
    )
    result = project.run("-p", "read notes.txt")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The file says hello.\n"
    assert len(fake_server.requests) == 2
    second = json.dumps(fake_server.requests[1].body)
    assert "hello from notes" in second and "call_1" in second
    first = fake_server.requests[0]
    auth = first.headers.get("x-api-key") or first.headers.get("authorization")
    assert auth is not None and "sk-local-test" in auth


@pytest.mark.parametrize("api", FORMATS)
def test_429_with_retry_after_then_success(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    fake_server.queue(
        Reply(429, b'{"error": {"message": "slow down"}}', {"retry-after": "1"}),
        Reply(body=text_reply(api, "ok")),
    )
    started = time.monotonic()
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started >= 1.0
    records = json_lines(result.stdout)
    assert records[-1]["stop_reason"] == "completed"
    notices = [r for r in records if r["type"] == "notify"]
    assert len(notices) == 1 and "slow down" in notices[0]["message"]
    assert "retrying in 1.0s" in notices[0]["message"]
    assert len(fake_server.requests) == 2


@pytest.mark.parametrize("api", FORMATS)
def test_a_401_that_echoes_the_key_never_shows_it(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    refused = b'{"error": {"message": "Incorrect API key provided: sk-local-test. Check it."}}'
    fake_server.queue(Reply(401, refused))
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 2
    assert "sk-local-test" not in result.stdout + result.stderr
    [end] = [r for r in json_lines(result.stdout) if r["type"] == "turn_end"]
    assert end["error"]["kind"] == "auth"
    assert "Incorrect API key provided: [redacted]. Check it." in end["error"]["message"]
    [session] = (project.home / "sessions").glob("*/*.jsonl")
    assert "sk-local-test" not in session.read_text()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_a_retry_after_that_is_no_number_of_seconds_is_ignored(
    project: Project, fake_server: FakeServer, value: str
) -> None:
    configure(project, fake_server, "chat-completions")
    fake_server.queue(
        Reply(429, b'{"error": {"message": "slow down"}}', {"retry-after": value}),
        Reply(body=text_reply("chat-completions", "ok")),
    )
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    [notice] = [r["message"] for r in json_lines(result.stdout) if r["type"] == "notify"]
    assert "retrying in 0.0s" in notice  # the configured backoff (0.01 s), not the header


@pytest.mark.parametrize("api", FORMATS)
def test_500_then_success(project: Project, fake_server: FakeServer, api: str) -> None:
    configure(project, fake_server, api)
    fake_server.queue(
        Reply(500, b'{"error": {"message": "internal"}}'), Reply(body=text_reply(api, "ok"))
    )
    result = project.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"
    assert "returned 500" in result.stderr


@pytest.mark.parametrize("api", FORMATS)
def test_stream_cut_off_midway_is_an_error(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    body = text_reply(api, "this answer will be cut off")
    fake_server.queue(Reply(body=body, cut_after=len(body) * 2 // 3))
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 1
    end = json_lines(result.stdout)[-1]
    assert end["type"] == "turn_end" and end["stop_reason"] == "error"
    assert end["error"]["kind"] in ("incomplete", "network")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("api", FORMATS)
def test_auth_error_exits_2_and_names_the_variable(
    project: Project, fake_server: FakeServer, api: str
) -> None:
    configure(project, fake_server, api)
    fake_server.queue(Reply(401, b'{"error": {"message": "invalid x-api-key"}}'))
    result = project.run("-p", "hi")
    assert result.returncode == 2
    assert "LOCAL_KEY" in result.stderr and "invalid x-api-key" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(fake_server.requests) == 1
