"""Chat Completions replies for `FakeServer`, and the settings that point a provider at it."""

from __future__ import annotations

import json
from typing import Any

from support.server import FakeServer, Reply, sse

MODEL = "local/test-model"
KEY = {"LOCAL_KEY": "sk-local-test"}
_CHUNK = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "test-model"}


def _choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return _CHUNK | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _usage(prompt: int, completion: int) -> dict[str, Any]:
    counts = {"prompt_tokens": prompt, "completion_tokens": completion}
    return _CHUNK | {"choices": [], "usage": counts | {"total_tokens": prompt + completion}}


def text(content: str) -> Reply:
    """A streamed answer of `content` (12 tokens in, 4 out)."""
    return Reply(
        body=sse(
            _choice({"role": "assistant", "content": content}),
            _choice({}, "stop"),
            _usage(12, 4),
            done=True,
        )
    )


def tool_calls(*calls: tuple[str, str, dict[str, Any]]) -> Reply:
    """A streamed response calling tools, each `(call_id, name, args)` (12 tokens in, 9 out)."""
    pieces = [
        {
            "index": i,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (call_id, name, args) in enumerate(calls)
    ]
    return Reply(
        body=sse(
            _choice({"role": "assistant", "tool_calls": pieces}),
            _choice({}, "tool_calls"),
            _usage(12, 9),
            done=True,
        )
    )


def settings(server: FakeServer) -> dict[str, Any]:
    """Settings choosing `MODEL`: a Chat Completions provider `local` served by `server`."""
    return {
        "model": MODEL,
        "providers": {
            "local": {
                "api": "chat-completions",
                "base_url": f"{server.url}/v1",
                "api_key_env": "LOCAL_KEY",
            }
        },
        "retry": {"base_delay": 0.01},
        "permissions": {"mode": "auto"},  # tests of permissions set their own
    }
