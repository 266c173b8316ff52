"""Replies as llama.cpp's `llama-server` streams them from a small model that writes its tool
calls as text: one `chat.completion.chunk` per token, the role first (content null), the finish
reason with the usage and timings last, then `[DONE]`.

The chunk shapes are llama-server's (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md,
"POST /v1/chat/completions", OpenAI-compatible streaming); the token cuts are a Qwen tokenizer's
for code and JSON: fences, language tags, newlines and words each their own delta.
"""

from __future__ import annotations

import re
from typing import Any

from support.server import Reply, sse

_TOKEN = re.compile(r"```|\n| ?[A-Za-z_]+| ?\d+| ?[^\sA-Za-z\d]{1,2}|[ \t]+")
_HEAD = {"created": 1764547200, "id": "chatcmpl-replay", "model": "qwen2.5-coder-1.5b-instruct"}
_HEAD |= {"system_fingerprint": "b7000-replay", "object": "chat.completion.chunk"}


def tokens(text: str) -> list[str]:
    """`text` cut into the deltas llama.cpp streams it as."""
    pieces = _TOKEN.findall(text)
    assert "".join(pieces) == text, "the token pattern must cover the text"
    return pieces


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}], **_HEAD, **extra}


def streamed(text: str) -> Reply:
    """`text` as llama-server streams it, token by token."""
    pieces = tokens(text)
    usage = {"completion_tokens": len(pieces), "prompt_tokens": 900, "total_tokens": 900}
    usage["total_tokens"] += len(pieces)
    timings = {"prompt_n": 900, "prompt_ms": 410.2, "predicted_n": len(pieces)}
    return Reply(
        body=sse(
            _chunk({"role": "assistant", "content": None}),
            *(_chunk({"content": piece}) for piece in pieces),
            _chunk({}, "stop", usage=usage, timings=timings),
            done=True,
        )
    )
