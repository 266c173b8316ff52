"""The HTTP side of every wire format: one pooled client, hooks, error classification, SSE."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import msgspec

from auger.llm.errors import ProviderError, classify_status, parse_retry_after
from auger.llm.provider import Exchange
from auger.llm.sse import SSEDecoder

DEFAULT_TIMEOUT = httpx2.Timeout(connect=15.0, read=300.0, write=60.0, pool=15.0)


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


class HttpClient:
    """POSTs JSON and reads server-sent events, for one provider.

    `key_env` names the variable that holds the key, so an auth failure can say what to set.
    `transport` is injectable for tests (an `httpx2` transport).
    """

    def __init__(
        self,
        provider: str,
        base_url: str,
        headers: dict[str, str],
        *,
        key_env: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        timeout: httpx2.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.headers = headers
        self.key_env = key_env
        self._transport = transport
        self._timeout = timeout
        self._client: httpx2.AsyncClient | None = None

    def _get_client(self) -> httpx2.AsyncClient:
        if self._client is None:
            # Plain-HTTP servers (local models, test servers) never use TLS, so skip loading
            # the CA store, which costs tens of milliseconds of start-up.
            verify = not self.base_url.startswith("http://")
            self._client = httpx2.AsyncClient(
                transport=self._transport, timeout=self._timeout, verify=verify
            )
        return self._client

    async def events(
        self, path: str, body: dict[str, Any], exchange: Exchange
    ) -> AsyncIterator[tuple[str, str]]:
        """POST `body` to `path` and yield each server-sent event as `(event, data)`."""
        url = self.base_url + path
        headers, body = await exchange.before_request(url, dict(self.headers), body)
        try:
            async with self._get_client().stream(
                "POST",
                url,
                content=json.dumps(body).encode(),
                headers={"content-type": "application/json", "accept": "text/event-stream"}
                | headers,
            ) as response:
                await exchange.after_response(url, response.status_code, dict(response.headers))
                if response.status_code >= 400:
                    raise self._http_error(response.status_code, await response.aread(), response)
                content_type = response.headers.get("content-type", "")
                if not content_type.startswith("text/event-stream"):
                    head = (await response.aread())[:300].decode(errors="replace")
                    raise ProviderError(
                        "bad_request",
                        f"{self.provider}: expected an event stream, got {content_type!r}: {head}",
                        status=response.status_code,
                    )
                decoder = SSEDecoder()
                async for chunk in response.aiter_bytes():
                    for event in decoder.feed(chunk):
                        yield event
        except httpx2.TransportError as exc:
            raise ProviderError("network", f"{self.provider}: {exc or type(exc).__name__}") from exc

    def _http_error(self, status: int, body: bytes, response: httpx2.Response) -> ProviderError:
        message = _error_message(body)
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
        if self._client is not None:
            await self._client.aclose()
            self._client = None


class Fetched(msgspec.Struct, frozen=True):
    """What `get` read: the final URL (after redirects), status, headers (lower-case names),
    and at most `max_bytes` of the body (`truncated` when there was more)."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    truncated: bool


class FetchError(Exception):
    """A GET that failed before a response arrived (DNS, refused, timeout, a bad URL)."""


async def get(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    max_bytes: int = 5 * 1024 * 1024,
    timeout: float = 30.0,
    max_redirects: int = 5,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Fetched:
    """GET `url`, following redirects, reading at most `max_bytes` of the body."""
    limits = httpx2.Timeout(timeout)
    client = httpx2.AsyncClient(
        transport=transport,
        timeout=limits,
        follow_redirects=True,
        max_redirects=max_redirects,
        verify=not url.startswith("http://"),
    )
    try:
        async with client, client.stream("GET", url, headers=headers or {}) as response:
            chunks: list[bytes] = []
            size = 0
            truncated = False
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    truncated = True
                    break
            return Fetched(
                str(response.url),
                response.status_code,
                {k.lower(): v for k, v in response.headers.items()},
                b"".join(chunks)[:max_bytes],
                truncated,
            )
    except httpx2.TooManyRedirects:
        raise FetchError(f"more than {max_redirects} redirects") from None
    except (httpx2.TransportError, httpx2.InvalidURL, httpx2.UnsupportedProtocol) as exc:
        raise FetchError(str(exc) or type(exc).__name__) from None
