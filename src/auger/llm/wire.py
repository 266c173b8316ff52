"""Pieces the streaming wire formats share: event decoding, stream errors, tool-call assembly."""

from __future__ import annotations

import json
from typing import Any

from auger.llm.errors import ProviderError, classify_status
from auger.llm.messages import ImagePart
from auger.llm.records import ToolCallDelta, ToolCallDone

# Error codes and types seen in stream error events (Anthropic `error.type`, OpenAI `code`/`type`).
_ERROR_KINDS = {
    "overloaded_error": "overloaded",
    "rate_limit_error": "rate_limit",
    "rate_limit_exceeded": "rate_limit",
    "api_error": "server",
    "server_error": "server",
    "invalid_request_error": "bad_request",
    "invalid_prompt": "bad_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "invalid_api_key": "auth",
    "not_found_error": "not_found",
    "context_length_exceeded": "context_overflow",
}


def decode(provider: str, data: str) -> dict[str, Any]:
    """One event's JSON payload; an unreadable one is a server failure."""
    try:
        return json.loads(data)
    except ValueError:
        raise ProviderError(
            "server", f"{provider}: unreadable stream event: {data[:200]}"
        ) from None


def stream_error(provider: str, error: dict[str, Any]) -> ProviderError:
    """The `ProviderError` for an error reported inside a stream, classified by code and message."""
    message = str(error.get("message") or "the stream reported an error")
    code = error.get("code")
    status = code if isinstance(code, int) else None
    kind = classify_status(status or 500, message)
    if kind != "context_overflow":
        for name in (code, error.get("type")):
            if isinstance(name, str) and name in _ERROR_KINDS:
                kind = _ERROR_KINDS[name]
                break
    return ProviderError(kind, f"{provider}: {message}", status=status)


def incomplete(provider: str) -> ProviderError:
    """The error for a stream that ended before its terminal event."""
    return ProviderError(
        "incomplete", f"{provider}: the stream ended before the response was complete"
    )


def bearer(api_key: str | None) -> dict[str, str]:
    """An `Authorization: Bearer` header, or none without a key (local servers)."""
    return {"authorization": f"Bearer {api_key}"} if api_key else {}


def data_url(image: ImagePart) -> str:
    """`image` as a base64 `data:` URL."""
    return f"data:{image.media_type};base64,{image.data}"


class PendingCall:
    """A tool call being streamed: its pieces so far, with the name sent on the first delta only."""

    __slots__ = ("call_id", "name", "parts")

    def __init__(self, call_id: str, name: str) -> None:
        self.call_id = call_id
        self.name = name
        self.parts: list[str] = []

    def delta(self, piece: str) -> ToolCallDelta:
        """The record for a new, non-empty argument piece."""
        name = None if self.parts else self.name
        self.parts.append(piece)
        return ToolCallDelta(self.call_id, name, piece)

    def done(self) -> ToolCallDone:
        """The finished call; `{}` when the model sent no arguments."""
        return ToolCallDone(self.call_id, self.name, "".join(self.parts) or "{}")
