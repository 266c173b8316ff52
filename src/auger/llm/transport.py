"""HTTP/1.1 over asyncio with h11: pooled keep-alive connections, TLS, proxies, timeouts.

h11 parses the protocol (it is the parser under httpx); this module keeps connections and
moves their bytes (`socket_reader`), through the proxy `proxy` picks: http:// and https://
proxies (TLS to the proxy, then TLS to the origin inside it: asyncio's `start_tls` nests) and
SOCKS4/4a/5/5h (`socks`), tunnelled by `tunnel`. An httpx transport for those proxies was
measured and not chosen: importing httpx2 (with httpcore2 and anyio, 36k lines) costs 55-100
ms on a 2-core machine, its SOCKS support needs socksio too, and a second transport would time
out, pool and word its errors differently from this one; the handshakes here are ~180 lines,
imported only when a proxy is used.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast
from urllib.parse import SplitResult, urlsplit

import h11
import msgspec

from auger._version import __version__
from auger.llm.encodings import ACCEPTED, decoder_for
from auger.llm.proxy import Proxies, Proxy, ProxyDenied, basic_auth
from auger.llm.socket_reader import IdleTimeout, Wire

if TYPE_CHECKING:
    import ssl

_DEFAULT_PORTS = {"http": 80, "https": 443}
_USER_AGENT = f"auger/{__version__}"


class TransportError(Exception):
    """The exchange failed below HTTP semantics: refused, reset, timed out, or broken HTTP;
    `kind` is `auth` when a proxy refused us (trying again cannot help)."""

    def __init__(self, message: str, kind: Literal["network", "auth"] = "network") -> None:
        super().__init__(message)
        self.kind = kind


class Timeouts(msgspec.Struct, frozen=True):
    """Seconds: to connect (TLS and proxy included), to send a request, between two received
    bytes (and, once a stream has begun, between two that are not keep-alive comments), from
    the request to the first event of a stream (not reset by keep-alives), and for the whole
    attempt, however steadily it trickles."""

    connect: float = 15.0
    write: float = 60.0
    idle: float = 90.0
    first_event: float = 300.0
    attempt: float = 3600.0


class HttpRequest(msgspec.Struct, frozen=True):
    """One request: header names lower-case."""

    method: str
    url: str
    headers: dict[str, str]
    content: bytes = b""


class Response:
    """A response as it arrives: status, lower-cased headers, then the (decoded) body."""

    def __init__(self, status: int, headers: dict[str, str], body: AsyncIterator[bytes]) -> None:
        self.status = status
        self.headers = headers
        self._body = body

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's chunks, as they come."""
        return self._body

    async def aclose(self) -> None:
        """Stop reading the body (what is left of it is not wanted)."""
        close = getattr(self._body, "aclose", None)
        if close is not None:
            await close()

    async def aread(self, limit: int = 1 << 20) -> bytes:
        """The body, up to `limit` bytes (an error body is never worth more)."""
        parts: list[bytes] = []
        size = 0
        async for chunk in self._body:
            parts.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
        return b"".join(parts)[:limit]


class Transport(Protocol):
    """What `HttpClient` needs: streamed exchanges, their timeouts, and closing."""

    timeouts: Timeouts

    def stream(self, request: HttpRequest) -> AbstractAsyncContextManager[Response]:
        """Send `request`; the response is readable inside the `async with`."""
        ...

    async def aclose(self) -> None:
        """Close every connection."""
        ...


_ssl_context: ssl.SSLContext | None = None


def default_ssl_context() -> ssl.SSLContext:
    """The system trust store's context, made on first use (loading it costs start-up)."""
    global _ssl_context
    if _ssl_context is None:
        import ssl

        _ssl_context = ssl.create_default_context()
        _ssl_context.set_alpn_protocols(["http/1.1"])
    return _ssl_context


class _Connection:
    """One socket and its h11 state; `origin` names it in errors."""

    def __init__(self, wire: Wire, host: str, origin: str) -> None:
        self.wire = wire
        self.host = host
        self.origin = origin
        self.h11 = h11.Connection(our_role=h11.CLIENT)
        self.loop = wire.loop

    async def next_event(self) -> Any:
        """The next h11 event, reading as needed."""
        while True:
            event = self.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            self.h11.receive_data(await self.wire.read())

    def finish_buffered(self) -> bool:
        """Read what already arrived of the response's end; whether the connection is reusable."""
        try:
            while self.h11.their_state is h11.SEND_BODY:
                event = self.h11.next_event()
                if event is h11.NEED_DATA:
                    data = self.wire.buffered()
                    if not data:
                        return False
                    self.h11.receive_data(data)
            if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
                self.h11.start_next_cycle()
                return not self.wire.closed()
        except h11.ProtocolError:
            pass
        return False


class HttpTransport:
    """Pooled HTTP/1.1 connections; proxies from `env`, TLS through the system trust store."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        timeouts: Timeouts | None = None,
        ssl_context: ssl.SSLContext | None = None,
        max_idle: int = 4,
    ) -> None:
        self.timeouts = timeouts or Timeouts()
        self._proxies = Proxies.from_env(env or {})
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}

    @asynccontextmanager
    async def stream(self, request: HttpRequest) -> AsyncIterator[Response]:
        """Send `request` on a pooled or new connection; the body is read inside the block."""
        url = urlsplit(request.url)
        scheme = url.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not url.hostname:
            raise TransportError(f"cannot request {request.url!r}: not an http(s) URL")
        host, port = url.hostname, url.port or _DEFAULT_PORTS[scheme]
        try:
            proxy = self._proxies.for_url(scheme, host, port)
        except ValueError as exc:
            raise TransportError(f"cannot use the proxy {exc}") from None
        key = (scheme, host, port)
        connection = self._reuse(key)
        reused = connection is not None
        try:
            if connection is None:
                connection = await self._connect(scheme, host, port, proxy)
            try:
                response = await self._send(connection, request, url, proxy)
            except TransportError:
                if not reused:
                    raise
                connection.wire.abort()  # the server had dropped it: one fresh attempt
                connection = await self._connect(scheme, host, port, proxy)
                response = await self._send(connection, request, url, proxy)
        except IdleTimeout:
            if connection is not None:
                connection.wire.abort()
            raise TransportError(self._silent(host)) from None
        except BaseException:
            if connection is not None:
                connection.wire.abort()
            raise
        try:
            yield response
        finally:
            await response.aclose()
            self._release(key, connection)

    def _reuse(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        loop = asyncio.get_running_loop()
        while idle:
            connection = idle.pop()
            if connection.loop is loop and not connection.wire.closed():
                return connection
            connection.wire.abort()
        return None

    def _release(self, key: tuple[str, str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if connection.finish_buffered() and len(idle) < self._max_idle:
            idle.append(connection)
        else:
            connection.wire.abort()

    def _tls(self) -> ssl.SSLContext:
        return self._ssl or default_ssl_context()

    def _silent(self, host: str) -> str:
        return f"no data from {host} for {self.timeouts.idle:g} s (http.idle_timeout)"

    async def _connect(self, scheme: str, host: str, port: int, proxy: Proxy | None) -> _Connection:
        loop = asyncio.get_running_loop()
        wire = Wire(loop, self.timeouts.idle)
        tls = self._tls() if scheme == "https" else None
        target, target_port = (proxy.host, proxy.port) if proxy else (host, port)
        origin = f"{host}:{port}" + (f" through {proxy.shown}" if proxy else "")
        # the first TLS is to the proxy for an https:// one, inside which the origin's nests
        first_tls = tls if proxy is None else self._tls() if proxy.scheme == "https" else None
        try:
            async with asyncio.timeout(self.timeouts.connect):
                await loop.create_connection(
                    lambda: wire,
                    target,
                    target_port,
                    ssl=first_tls,
                    server_hostname=target if first_tls else None,
                )
                if proxy is not None and (tls is not None or not proxy.forwards):
                    from auger.llm.tunnel import open_tunnel  # only a proxy's user pays for it

                    await open_tunnel(wire, proxy, host, port, _USER_AGENT)
                if proxy is not None and tls is not None:
                    assert wire.transport is not None
                    upgraded = await loop.start_tls(wire.transport, wire, tls, server_hostname=host)
                    wire.transport = cast(asyncio.Transport, upgraded)
        except TimeoutError:
            wire.abort()
            raise TransportError(
                f"connecting to {origin} timed out after {self.timeouts.connect:g} s"
            ) from None
        except IdleTimeout:
            wire.abort()
            raise TransportError(self._silent(target)) from None
        except ProxyDenied as exc:
            wire.abort()
            raise TransportError(f"cannot connect to {origin}: {exc}", "auth") from None
        except OSError as exc:  # refused, unreachable, DNS, TLS (ssl.SSLError is an OSError)
            wire.abort()
            raise TransportError(f"cannot connect to {origin}: {_reason(exc)}") from None
        return _Connection(wire, host, origin)

    async def _send(
        self, connection: _Connection, request: HttpRequest, url: SplitResult, proxy: Proxy | None
    ) -> Response:
        host = url.netloc.rpartition("@")[2]
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        forwarded = proxy is not None and proxy.forwards and url.scheme == "http"
        if forwarded:
            target = f"http://{host}{target}"
        headers = {"host": host, "user-agent": _USER_AGENT, "accept-encoding": ACCEPTED}
        headers |= request.headers
        headers["content-length"] = str(len(request.content))
        if forwarded and proxy is not None and (proxy.username or proxy.password):
            headers["proxy-authorization"] = basic_auth(proxy)
        h = connection.h11
        try:
            data = h.send(
                h11.Request(method=request.method, target=target, headers=list(headers.items()))
            )
            data += h.send(h11.Data(data=request.content)) if request.content else b""
            data += h.send(h11.EndOfMessage())
            async with asyncio.timeout(self.timeouts.write):
                await connection.wire.write(data)
            event = await connection.next_event()
            while isinstance(event, h11.InformationalResponse):
                event = await connection.next_event()
        except TimeoutError:
            raise TransportError(f"sending to {connection.origin} timed out") from None
        except (h11.ProtocolError, OSError) as exc:
            raise TransportError(_broken(connection, exc)) from None
        response_headers: dict[str, str] = {}
        for name, value in event.headers:
            key = name.decode("latin-1")
            text = value.decode("latin-1")
            response_headers[key] = (
                f"{response_headers[key]}, {text}" if key in response_headers else text
            )
        body = self._body(connection, response_headers.get("content-encoding", ""))
        return Response(event.status_code, response_headers, body)

    async def _body(self, connection: _Connection, encoding: str) -> AsyncIterator[bytes]:
        try:
            decoder = decoder_for(encoding)
        except ValueError as exc:
            raise TransportError(f"{connection.origin} sent {exc}") from None
        try:
            while True:
                event = await connection.next_event()
                if isinstance(event, h11.Data):
                    yield decoder.decompress(event.data) if decoder else bytes(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    if decoder is not None and (tail := decoder.flush()):
                        yield tail
                    return
        except IdleTimeout:
            raise TransportError(self._silent(connection.host)) from None
        except (h11.ProtocolError, OSError, zlib.error) as exc:
            raise TransportError(_broken(connection, exc)) from None

    async def aclose(self) -> None:
        """Close every idle connection."""
        for connections in self._idle.values():
            for connection in connections:
                connection.wire.abort()
        self._idle.clear()


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None)
    return str(reason or exc or type(exc).__name__)


def _broken(connection: _Connection, exc: BaseException) -> str:
    if isinstance(exc, h11.LocalProtocolError):
        return f"cannot send the request to {connection.origin}: {exc}"
    if connection.wire.at_eof and isinstance(exc, h11.RemoteProtocolError):
        return f"{connection.origin} closed the connection mid-response"
    if isinstance(exc, OSError):
        return f"the connection to {connection.origin} failed: {_reason(exc)}"
    return f"{connection.origin} sent invalid HTTP: {exc}"
