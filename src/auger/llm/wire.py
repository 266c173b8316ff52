"""Shared by the wire formats: HTTP provider base, event decoding, errors, tool-call assembly."""

from __future__ import annotations

from typing import Any

import msgspec

from auger.llm.errors import ProviderError, classify_status
from auger.llm.http import HttpClient
from auger.llm.messages import ImagePart
from auger.llm.records import ToolCallDelta, ToolCallDone
from auger.llm.transport import Transport

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


_json_decode = msgspec.json.decode  # several times faster than json.loads, once per delta


def decode(provider: str, data: str) -> dict[str, Any]:
    """One event's JSON payload; an unreadable one is a server failure."""
    try:
        return _json_decode(data)
    except msgspec.DecodeError:
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


def data_url(image: ImagePart) -> str:
    """`image` as a base64 `data:` URL."""
    return f"data:{image.media_type};base64,{image.data}"


class HttpProvider:
    """What every HTTP wire format shares: the constructor, one pooled client, `aclose`.

    `headers` go over the format's own (auth, version), names compared case-insensitively.
    """

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: str | None,
        *,
        key_env: str | None = None,
        headers: dict[str, str] | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.name = name
        extra = {k.lower(): v for k, v in (headers or {}).items()}
        self._http = HttpClient(
            name, base_url, self.auth_headers(api_key) | extra, key_env=key_env, transport=transport
        )

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`Authorization: Bearer`, or nothing without a key (local servers)."""
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    async def aclose(self) -> None:
        """Release connections."""
        await self._http.aclose()


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
