"""Shared by the wire formats: HTTP provider base, event decoding, errors, tool-call assembly."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing, contextmanager
from typing import Any, ClassVar, Literal

import msgspec

from auger.llm.auth import Authorizer
from auger.llm.errors import ErrorKind, ProviderError, classify_status
from auger.llm.formats import Endpoint
from auger.llm.http import HttpClient
from auger.llm.messages import AssistantMessage
from auger.llm.provider import Exchange, Request
from auger.llm.records import Record, ToolCallDelta, ToolCallDone
from auger.llm.transport import Transport

# Error codes and types seen in stream error events (Anthropic `error.type`, OpenAI `code`/`type`).
_ERROR_KINDS: dict[str, ErrorKind] = {
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
    "exceed_context_size_error": "context_overflow",
    "insufficient_quota": "quota",
}


_json_decode = msgspec.json.decode  # several times faster than json.loads, once per delta


def decode(provider: str, data: str) -> dict[str, Any]:
    """One event's JSON object; anything else is a `bad_response`."""
    try:
        value = _json_decode(data)
    except msgspec.DecodeError:
        raise ProviderError(
            "bad_response", f"{provider}: unreadable stream event: {data[:200]}"
        ) from None
    if not isinstance(value, dict):
        raise ProviderError("bad_response", f"{provider}: a stream event that is not an object")
    return value


def string(value: object) -> str:
    """A piece of text from the server; anything but a string is a malformed response."""
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__} {str(value)[:80]!r}")
    return value


# What reading a server's data raises when the data is not what its format promises.
_MALFORMED = (KeyError, IndexError, TypeError, AttributeError, ValueError, UnicodeDecodeError)


@contextmanager
def malformed(provider: str) -> Iterator[None]:
    """Data that breaks a format's promises (a missing field, a number for text, bad UTF-8)
    becomes a `bad_response` naming the provider. A format's `records` reads its stream in
    this block, so the check costs nothing per record."""
    try:
        yield
    except _MALFORMED as exc:
        raise ProviderError(
            "bad_response",
            f"{provider}: the response is not what the API promises "
            f"({type(exc).__name__}: {str(exc)[:200]})",
        ) from exc


def stream_error(provider: str, error: dict[str, Any]) -> ProviderError:
    """The `ProviderError` for an error reported inside a stream, classified by code and message."""
    message = str(error.get("message") or "the stream reported an error")
    code = error.get("code")
    status = code if isinstance(code, int) else None
    kind = classify_status(status or 500, message)
    if kind not in ("context_overflow", "quota"):
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


class NoCompat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A wire format without options."""


class BearerCompat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The options every OpenAI-style format shares: how the key is sent."""

    auth: Literal["bearer", "api-key"] = "bearer"  # `api-key: KEY` is Azure's header


class CacheSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Settings' `cache` object: how long Anthropic-style cache entries live (`cache.ttl`) and
    OpenAI's `prompt_cache_retention` (`cache.retention`; `None`: the server's default)."""

    ttl: Literal["5m", "1h"] = "5m"
    retention: Literal["in_memory", "24h"] | None = None


class HttpProvider:
    """What every HTTP wire format shares: the constructor, one pooled client, `aclose`.

    `headers` go over the format's own (auth, version), names compared case-insensitively;
    `compat` is validated into the format's `Compat` struct, `cache` into `CacheSettings`.
    """

    Compat: ClassVar[type[msgspec.Struct]] = NoCompat
    Client: ClassVar[type[HttpClient]] = HttpClient  # a cloud's signs its requests

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: str | None,
        *,
        key_env: str | None = None,
        headers: dict[str, str] | None = None,
        compat: Mapping[str, Any] | None = None,
        transport: Transport | None = None,
        auth: Authorizer | None = None,
        cache: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        try:
            self.compat: Any = msgspec.convert(dict(compat or {}), type=self.Compat)
        except msgspec.ValidationError as exc:
            raise ValueError(f'provider {name!r}: "compat": {exc}') from None
        try:
            self.cache = msgspec.convert(dict(cache or {}), type=CacheSettings)
        except msgspec.ValidationError as exc:
            raise ValueError(f'settings "cache": {exc}') from None
        extra = {k.lower(): v for k, v in (headers or {}).items()}
        self._auth = auth
        self._http = self.Client(
            name, base_url, self.auth_headers(api_key) | extra, key_env=key_env, transport=transport
        )

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, transport: Any = None) -> HttpProvider:
        """A provider for `endpoint` (the wire-format table's constructor)."""
        return cls(
            endpoint.name,
            endpoint.base_url,
            endpoint.api_key,
            key_env=endpoint.key_env,
            headers=endpoint.headers,
            compat=endpoint.compat,
            transport=transport,
            auth=endpoint.auth,
            cache=endpoint.cache,
        )

    def records(self, request: Request, exchange: Exchange) -> AsyncGenerator[Record, None]:
        """The format's state machine over one response (each format implements it)."""
        raise NotImplementedError

    def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one response (each format's `records`, read inside `malformed`); a
        signed-in endpoint's credentials go on each request, renewed once on a 401."""
        if self._auth is None:
            return self.records(request, exchange)
        return self._signed_in(request, exchange, self._auth)

    async def _signed_in(
        self, request: Request, exchange: Exchange, auth: Authorizer
    ) -> AsyncGenerator[Record, None]:
        signed = Authorized(auth, exchange)
        started = False
        try:
            async with aclosing(self.records(request, signed)) as records:
                async for record in records:
                    started = True
                    yield record
            return
        except ProviderError as error:
            # refused before anything arrived: the token expired early or was rotated
            if started or error.status != 401 or not await auth.rejected():
                raise
        async with aclosing(self.records(request, signed)) as records:
            async for record in records:
                yield record

    def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """The server-sent events of one POST."""
        return self._http.events(path, body, exchange)

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        """`Authorization: Bearer` (or Azure's `api-key`), nothing without a key (local servers)."""
        if not api_key:
            return {}
        if getattr(self.compat, "auth", "bearer") == "api-key":
            return {"api-key": api_key}
        return {"authorization": f"Bearer {api_key}"}

    async def aclose(self) -> None:
        """Release connections."""
        await self._http.aclose()


class Authorized:
    """An exchange that puts an `Authorizer`'s current credentials on each request before the
    hooks of the exchange it wraps see it."""

    def __init__(self, auth: Authorizer, inner: Exchange) -> None:
        self.auth = auth
        self.inner = inner

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The credentials, then the wrapped hooks."""
        headers, body = await self.auth.prepare(headers, body)
        return await self.inner.before_request(url, headers, body)

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """The wrapped hooks."""
        await self.inner.after_response(url, status, headers)


class UniqueIds:
    """Tool-call ids for one response, unique within it and among the calls of the history
    it answers: a server that repeats an id (or sends none) gets a fresh one, so each result
    maps back to its own call."""

    __slots__ = ("_used",)

    def __init__(self, request: Request) -> None:
        self._used = {
            c.call_id
            for m in request.messages
            if isinstance(m, AssistantMessage)
            for c in m.tool_calls
        }

    def __call__(self, call_id: str | None) -> str:
        """`call_id` when it is new, else (or when missing) a fresh id derived from it."""
        base = call_id or "call"
        fresh, n = base, 1
        while fresh in self._used or not fresh:
            n += 1
            fresh = f"{base}_{n}"
        self._used.add(fresh)
        return fresh


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
