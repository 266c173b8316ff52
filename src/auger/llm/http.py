"""The HTTP side of every wire format: one pooled client, hooks, error classification, SSE."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from auger.llm.errors import ProviderError, classify_status, parse_retry_after
from auger.llm.provider import Exchange
from auger.llm.sse import SSEDecoder
from auger.llm.transport import HttpRequest, HttpTransport, Timeouts, Transport, TransportError


def _error_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300] or "no details"
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:300]
    return str(error)[:300]


class Decoder(Protocol):
    """Turns a stream's byte chunks into `(event, data)` pairs (`SSEDecoder` is one);
    `progressed` says whether the last chunk was more than a keep-alive."""

    progressed: bool

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        """The events completed by `chunk`, in order."""
        ...


_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})


class HttpClient:
    """POSTs JSON and reads server-sent events, for one provider.

    `key_env` names the variable that holds the key, so an auth failure can say what to set.
    `transport` carries the bytes (proxies, TLS, timeouts); a test may pass its own. A cloud's
    client overrides `prepare` (to sign or authorize each request), and `stream_type` with
    `decoder` for a stream that is not server-sent events.
    """

    stream_type: ClassVar[str] = "text/event-stream"

    def __init__(
        self,
        provider: str,
        base_url: str,
        headers: dict[str, str],
        *,
        key_env: str | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.headers = headers
        self.key_env = key_env
        self._transport = transport or HttpTransport()
        self._last_failure: tuple[bytes, str] | None = None  # (request, error) of a 5xx

    async def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncGenerator[tuple[str, str], None]:
        """POST `body` to `path` and yield each server-sent event as `(event, data)`."""
        url = self.base_url + path
        headers, body = await exchange.before_request(url, dict(self.headers), body)
        request = HttpRequest(
            "POST",
            url,
            {"content-type": "application/json", "accept": self.stream_type}
            | {k.lower(): v for k, v in headers.items()},
            json.dumps(body).encode(),
        )
        request = await self.prepare(request)
        timeouts = self._transport.timeouts
        first_event = timeouts.first_event
        clock = asyncio.get_running_loop().time
        ends = clock() + timeouts.attempt
        try:
            # Keep-alive comments do not reset this timer: it stops at the first event, before
            # anything is yielded, so it never fires inside the consumer's code. Past it, the
            # stream is checked as each chunk arrives (total silence is the socket's idle
            # timeout): the attempt's deadline, and that keep-alives alone are no progress.
            limit: asyncio.Timeout | None
            async with asyncio.timeout(min(first_event, timeouts.attempt)) as limit:
                async with self._transport.stream(request) as response:
                    await exchange.after_response(url, response.status, dict(response.headers))
                    if response.status >= 400:
                        error = self._http_error(response, await response.aread())
                        raise self._remember(error, request.content)
                    content_type = response.headers.get("content-type", "")
                    if not content_type.startswith(self.stream_type):
                        raise self._not_a_stream(response, content_type, await response.aread(300))
                    decoder = self.decoder()
                    heard = clock()
                    async for chunk in response.aiter_bytes():
                        events = decoder.feed(chunk)
                        if events and limit is not None:
                            limit.reschedule(None)
                            limit = None
                        now = clock()
                        if limit is None:
                            if now > ends:
                                raise self._too_slow(timeouts, "attempt")
                            if not decoder.progressed and now - heard > timeouts.idle:
                                raise self._too_slow(timeouts, "idle")
                        if decoder.progressed:
                            heard = now
                        for event in events:
                            yield event
                        if events:
                            heard = clock()  # the consumer's own time is not the server's silence
            self._last_failure = None
        except TransportError as exc:
            raise ProviderError(exc.kind, f"{self.provider}: {exc}") from None
        except TimeoutError:
            if limit is None or not limit.expired():
                raise
            if timeouts.attempt < first_event:
                raise self._too_slow(timeouts, "attempt") from None
            raise ProviderError(
                "network",
                f"{self.provider}: no response within {first_event:g} s (http.first_event_timeout)",
            ) from None

    async def prepare(self, request: HttpRequest) -> HttpRequest:
        """The request as it is sent (a cloud signs it here)."""
        return request

    def decoder(self) -> Decoder:
        """A fresh decoder of the response stream."""
        return SSEDecoder()

    def _too_slow(self, timeouts: Timeouts, which: Literal["attempt", "idle"]) -> ProviderError:
        """The attempt's deadline passed, or only keep-alive comments came for the idle time."""
        if which == "attempt":
            what = f"the response took longer than {timeouts.attempt:g} s (http.attempt_timeout)"
        else:
            what = (
                f"only keep-alive comments for {timeouts.idle:g} s "
                "(http.idle_timeout; comments do not count once a response has begun)"
            )
        return ProviderError("network", f"{self.provider}: {what}")

    def _remember(self, error: ProviderError, sent: bytes) -> ProviderError:
        """A server error (HTTP 5xx) answered twice with the same body to the same request is
        deterministic — a third attempt cannot help — so the second one is not retryable."""
        if error.kind == "server" and error.status is not None:
            failure = (sent, f"{error.status}:{error.message}")
            if failure == self._last_failure:
                error.repeated = True
                error.message += " (the same answer to the same request twice: not retried)"
            self._last_failure = failure
        return error

    def _not_a_stream(self, response: Any, content_type: str, body: bytes) -> ProviderError:
        return ProviderError(
            "bad_request",
            f"{self.provider}: expected an event stream, got {content_type!r}: "
            + self._redacted(body.decode(errors="replace")),
            status=response.status,
        )

    def _redacted(self, text: str) -> str:
        """`text` with the credentials this client sends blanked out: a server may echo the
        key it refused, and the message is shown and saved."""
        for name, value in self.headers.items():
            if name.lower() not in _SECRET_HEADERS:
                continue
            secret = value.removeprefix("Bearer ").removeprefix("bearer ").strip()
            if len(secret) >= 8:  # a short value would blank ordinary words
                text = text.replace(secret, "[redacted]")
        return text

    def _http_error(self, response: Any, body: bytes) -> ProviderError:
        status = response.status
        message = self._redacted(_error_message(body))
        kind = classify_status(status, message)
        text = f"{self.provider} returned {status}: {message}"
        if kind == "auth" and self.key_env:
            text += f" — set {self.key_env} to a valid API key"
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        ms = parse_retry_after(response.headers.get("retry-after-ms"))
        if ms is not None:
            retry_after = ms / 1000
        return ProviderError(kind, text, status=status, retry_after=retry_after)

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._transport.aclose()


class Fetched(msgspec.Struct, frozen=True):
    """What `get` read: the final URL (after redirects), status, headers (lower-case names),
    and at most `max_bytes` of the body (`truncated` when there was more)."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    truncated: bool


class FetchError(Exception):
    """A GET that failed before a response arrived (refused, timed out, too many redirects)."""


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


async def get(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    max_bytes: int = 5 * 1024 * 1024,
    timeout: float = 30.0,
    max_redirects: int = 5,
    env: Mapping[str, str] | None = None,
    transport: Transport | None = None,
) -> Fetched:
    """GET `url` (proxies from `env`), following redirects, reading at most `max_bytes`."""
    from urllib.parse import urljoin

    from auger.llm.transport import Timeouts

    own = transport is None
    if transport is None:
        limits = Timeouts(connect=timeout, write=timeout, idle=timeout, first_event=timeout)
        transport = HttpTransport(env=env, timeouts=limits)
    sent = {k.lower(): v for k, v in (headers or {}).items()}
    try:
        for _ in range(max_redirects + 1):
            async with transport.stream(HttpRequest("GET", url, sent)) as response:
                location = response.headers.get("location")
                if response.status in _REDIRECTS and location:
                    url = urljoin(url, location)
                    continue
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > max_bytes:
                        break
                body = b"".join(chunks)
                return Fetched(
                    url, response.status, dict(response.headers), body[:max_bytes], size > max_bytes
                )
        raise FetchError(f"more than {max_redirects} redirects")
    except TransportError as exc:
        raise FetchError(str(exc) or type(exc).__name__) from None
    finally:
        if own:
            await transport.aclose()
