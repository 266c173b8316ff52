"""The h11 transport against real sockets on 127.0.0.1: servers, a CONNECT proxy, faults."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator

import pytest
import trustme
from hypothesis import given, settings
from hypothesis import strategies as st

from auger.llm.errors import ProviderError
from auger.llm.http import HttpClient
from auger.llm.provider import PassThrough
from auger.llm.transport import (
    HttpRequest,
    HttpTransport,
    Timeouts,
    TransportError,
)
from support.sockets import Handler, Proxy, Server, client_tls, read_request, server_tls


def ok(body: bytes, *, extra: str = "") -> bytes:
    """A keep-alive 200 response with a content-length body."""
    return (
        f"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


async def serve_forever(body: bytes = b"hello") -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            writer.write(ok(body))
            await writer.drain()

    return handler


async def fetch(transport: HttpTransport, url: str, body: bytes = b"{}") -> tuple[int, bytes]:
    """POST `body` to `url`; the status and the whole response body."""
    async with transport.stream(HttpRequest("POST", url, {}, body)) as response:
        return response.status, b"".join([c async for c in response.aiter_bytes()])


@pytest.fixture
async def transport() -> AsyncIterator[HttpTransport]:
    made = HttpTransport(timeouts=Timeouts(connect=2, write=2, idle=2, first_event=5))
    yield made
    await made.aclose()


async def test_keep_alive_reuses_one_connection(transport: HttpTransport):
    async with Server(await serve_forever()) as server:
        url = f"http://127.0.0.1:{server.port}/x"
        assert await fetch(transport, url) == (200, b"hello")
        assert await fetch(transport, url) == (200, b"hello")
        assert server.connections == 1


async def test_the_request_as_sent(transport: HttpTransport):
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(ok(b""))

    async with Server(handler) as server:
        request = HttpRequest(
            "POST", f"http://127.0.0.1:{server.port}/v1/x?a=1", {"x-k": "v"}, b"{}"
        )
        async with transport.stream(request) as response:
            await response.aread()
    head, _, body = seen[0].partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/x?a=1 HTTP/1.1"
    assert f"host: 127.0.0.1:{server.port}" in lines
    assert "x-k: v" in lines and "content-length: 2" in lines
    assert body == b"{}"


async def test_chunked_body(transport: HttpTransport):
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        for piece in (b"data: 1\n\n", b"data: 2\n\n"):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.01)
        writer.write(b"0\r\n\r\n")

    async with Server(handler) as server:
        assert await fetch(transport, f"http://127.0.0.1:{server.port}/") == (
            200,
            b"data: 1\n\ndata: 2\n\n",
        )


async def test_gzip_body_is_decoded(transport: HttpTransport):
    packed = gzip.compress(b'{"error": "zipped"}')

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await read_request(reader)
        assert b"accept-encoding: gzip" in request
        writer.write(ok(packed, extra="content-encoding: gzip\r\n"))

    async with Server(handler) as server:
        assert await fetch(transport, f"http://127.0.0.1:{server.port}/") == (
            200,
            b'{"error": "zipped"}',
        )


async def test_a_dropped_keep_alive_connection_is_replaced(transport: HttpTransport):
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(ok(b"once"))  # says keep-alive, then closes anyway
        await writer.drain()

    async with Server(handler) as server:
        url = f"http://127.0.0.1:{server.port}/"
        assert await fetch(transport, url) == (200, b"once")
        await asyncio.sleep(0.05)
        assert await fetch(transport, url) == (200, b"once")
        assert server.connections == 2


async def test_connection_refused():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(TransportError, match=f"cannot connect to 127.0.0.1:{port}"):
        await fetch(HttpTransport(), f"http://127.0.0.1:{port}/")


# --- timeouts and faults, through HttpClient as every provider uses it -------------------------


def client(port: int, **timeouts: float) -> HttpClient:
    transport = HttpTransport(timeouts=Timeouts(**({"connect": 2.0} | timeouts)))
    return HttpClient("mock", f"http://127.0.0.1:{port}", {}, transport=transport)


async def events(http: HttpClient) -> list[tuple[str, str]]:
    try:
        return [e async for e in http.events("/v1/x", {}, PassThrough())]
    finally:
        await http.aclose()


async def test_a_silent_server_fails_after_the_idle_timeout():
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(30)

    async with Server(handler) as server:
        started = asyncio.get_running_loop().time()
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port, idle=0.2))
    assert asyncio.get_running_loop().time() - started < 2
    assert caught.value.kind == "network" and caught.value.retryable
    assert caught.value.message == "mock: no data from 127.0.0.1 for 0.2 s (http.idle_timeout)"


async def sse_handler(pieces: list[bytes], gap: float, *, forever: bytes | None = None) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
        )
        for piece in pieces:
            writer.write(piece)
            await writer.drain()
            await asyncio.sleep(gap)
        while forever is not None:
            writer.write(forever)
            await writer.drain()
            await asyncio.sleep(gap)

    return handler


async def test_the_idle_timeout_runs_between_bytes():
    pieces = [b": wait\n\n", b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n"] * 2
    async with Server(await sse_handler(pieces, 0.05)) as server:
        got = await events(client(server.port, idle=0.25))
    assert [data for _, data in got] == ["1", "2", "3"] * 2  # 0.4 s in all, 0.05 s per gap


async def test_keep_alive_comments_do_not_reset_the_first_event_limit():
    async with Server(await sse_handler([], 0.05, forever=b": ping\n\n")) as server:
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port, idle=0.5, first_event=0.4))
    assert caught.value.kind == "network"
    assert caught.value.message == "mock: no response within 0.4 s (http.first_event_timeout)"


async def test_keep_alive_comments_do_not_reset_the_idle_clock_once_a_response_has_begun():
    pinging = await sse_handler([b"data: 1\n\n"], 0.05, forever=b": ping\n\n")
    async with Server(pinging) as server:
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port, idle=0.3, first_event=5))
    assert caught.value.kind == "network" and caught.value.retryable
    assert caught.value.message == (
        "mock: only keep-alive comments for 0.3 s "
        "(http.idle_timeout; comments do not count once a response has begun)"
    )


async def test_a_response_that_trickles_forever_fails_at_the_attempt_deadline():
    async with Server(await sse_handler([], 0.05, forever=b"data: 1\n\n")) as server:
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port, idle=0.3, first_event=5, attempt=0.5))
    assert caught.value.kind == "network" and caught.value.retryable
    assert caught.value.message == (
        "mock: the response took longer than 0.5 s (http.attempt_timeout)"
    )


async def test_a_server_that_closes_mid_body():
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 100\r\n\r\n"
            b"data: 1\n\n"
        )
        await writer.drain()

    async with Server(handler) as server:
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port))
    assert caught.value.kind == "network"
    assert caught.value.message == (
        f"mock: 127.0.0.1:{server.port} closed the connection mid-response"
    )


async def test_garbage_instead_of_http():
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")

    async with Server(handler) as server:
        with pytest.raises(ProviderError) as caught:
            await events(client(server.port))
    assert caught.value.kind == "network"
    assert "sent invalid HTTP" in caught.value.message


# --- TLS and proxies ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


async def test_https_verifies_the_certificate(ca: trustme.CA):
    async with Server(await serve_forever(b"secure"), tls=server_tls(ca)) as server:
        trusting = HttpTransport(ssl_context=client_tls(ca))
        assert await fetch(trusting, f"https://localhost:{server.port}/") == (200, b"secure")
        await trusting.aclose()
        with pytest.raises(
            TransportError, match=r"cannot connect to localhost.*CERTIFICATE_VERIFY"
        ):
            await fetch(HttpTransport(), f"https://localhost:{server.port}/")


async def test_https_through_a_connect_proxy(ca: trustme.CA):
    proxy = Proxy()
    async with (
        Server(await serve_forever(b"tunnelled"), tls=server_tls(ca)) as origin,
        Server(proxy.handle) as proxy_server,
    ):
        env = {"HTTPS_PROXY": f"http://user:p%40ss@127.0.0.1:{proxy_server.port}"}
        through = HttpTransport(env=env, ssl_context=client_tls(ca))
        url = f"https://localhost:{origin.port}/v1"
        assert await fetch(through, url) == (200, b"tunnelled")
        assert await fetch(through, url) == (200, b"tunnelled")
        await through.aclose()
    (head,) = proxy.heads  # one tunnel, kept alive for both requests
    assert head.startswith(f"CONNECT localhost:{origin.port} HTTP/1.1\r\n".encode())
    assert b"proxy-authorization: Basic dXNlcjpwQHNz" in head  # user:p@ss


async def test_plain_http_through_a_proxy():
    proxy = Proxy()
    async with Server(await serve_forever(b"relayed")) as origin, Server(proxy.handle) as hop:
        through = HttpTransport(env={"http_proxy": f"127.0.0.1:{hop.port}"})
        assert await fetch(through, f"http://127.0.0.1:{origin.port}/a?b=1") == (200, b"relayed")
        await through.aclose()
    assert proxy.heads[0].startswith(f"POST http://127.0.0.1:{origin.port}/a?b=1 ".encode())


async def test_a_proxy_that_refuses_the_tunnel(ca: trustme.CA):
    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n")

    async with Server(refuse) as hop:
        through = HttpTransport(env={"HTTPS_PROXY": f"http://127.0.0.1:{hop.port}"})
        with pytest.raises(TransportError, match="CONNECT with 407"):
            await fetch(through, "https://api.example.test/v1")


async def test_a_cancelled_stream_drops_its_connection(transport: HttpTransport):
    gate = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n")
            await writer.drain()
            await gate.wait()
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async with Server(handler) as server:
        url = f"http://127.0.0.1:{server.port}/"
        got: list[bytes] = []

        async def consume() -> None:
            async with transport.stream(HttpRequest("POST", url, {}, b"{}")) as response:
                async for chunk in response.aiter_bytes():
                    got.append(chunk)

        task = asyncio.create_task(consume())
        while not got:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()
        assert await fetch(transport, url) == (200, b"first")
        assert server.connections == 2  # the half-read one was not put back in the pool


_HEAD = st.sampled_from(
    [
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 9\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\n",
        b"HTTP/1.0 500 Oops\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\n\r\n",
        b"",
    ]
)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(head=_HEAD, rest=st.binary(max_size=200))
def test_whatever_a_server_sends_is_a_response_or_a_transport_error(head: bytes, rest: bytes):
    async def scenario() -> None:
        async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await read_request(reader)
            writer.write(head + rest)
            await writer.drain()

        transport = HttpTransport(timeouts=Timeouts(connect=2, write=2, idle=0.5))
        async with Server(handler) as server:
            try:
                status, _ = await fetch(transport, f"http://127.0.0.1:{server.port}/")
            except TransportError as exc:
                assert str(exc)
            else:
                assert 100 <= status < 600
            finally:
                await transport.aclose()

    asyncio.run(scenario())
