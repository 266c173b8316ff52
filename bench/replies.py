"""Scripted model replies in each wire format, for benchmarks that run a harness against a
local `FakeServer`: a text answer, or a response calling tools."""

from __future__ import annotations

import json
from typing import Any

from support.chat import text as chat_text
from support.chat import tool_calls as chat_tool_calls
from support.server import Reply, sse

Call = tuple[str, str, dict[str, Any]]  # (call id, tool name, arguments)

_USAGE = {  # the whole shape: Codex rejects a completion whose usage lacks a field
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 25,
}


def _anthropic(blocks: list[dict[str, Any]], stop: str) -> Reply:
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {"usage": {"input_tokens": 20}}})
    ]
    for i, block in enumerate(blocks):
        start = (
            {"type": "text", "text": ""}
            if "text" in block
            else {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        )
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        delta = (
            {"type": "text_delta", "text": block["text"]}
            if "text" in block
            else {"type": "input_json_delta", "partial_json": json.dumps(block["args"])}
        )
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 5},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return Reply(body=sse(*events))


def _responses(items: list[dict[str, Any]]) -> Reply:
    created = {"id": "resp_1", "status": "in_progress", "output": []}
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": created})
    ]
    for i, item in enumerate(items):
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": i, "item": item},
            )
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events.append(
                (
                    "response.output_text.delta",
                    {"type": "response.output_text.delta", "output_index": i, "delta": text},
                )
            )
            events.append(
                (
                    "response.output_text.done",
                    {"type": "response.output_text.done", "output_index": i, "text": text},
                )
            )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": i, "item": item},
            )
        )
    done = {"id": "resp_1", "status": "completed", "output": items, "usage": _USAGE}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return Reply(body=sse(*events))


def text(api: str, content: str) -> Reply:
    """A reply that answers `content` and stops."""
    if api == "chat-completions":
        return chat_text(content)
    if api == "messages":
        return _anthropic([{"text": content}], "end_turn")
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": content}],
    }
    return _responses([message])


def calls(api: str, *calls: Call) -> Reply:
    """A reply that calls `calls`."""
    if api == "chat-completions":
        return chat_tool_calls(*calls)
    if api == "messages":
        return _anthropic(
            [
                {"type": "tool_use", "id": cid, "name": name, "args": args}
                for cid, name, args in calls
            ],
            "tool_use",
        )
    items = [
        {
            "type": "function_call",
            "id": f"fc_{cid}",
            "call_id": cid,
            "name": name,
            "arguments": json.dumps(args),
        }
        for cid, name, args in calls
    ]
    return _responses(items)
