"""Raw asyncio servers on 127.0.0.1 for transport tests: a handler per connection, a proxy."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable

import trustme

from auger.llm.http import HttpClient
from auger.llm.provider import PassThrough
from auger.llm.transport import HttpTransport, Timeouts

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """An asyncio TCP server on 127.0.0.1 running `handler` per connection, counting them."""

    def __init__(self, handler: Handler, tls: ssl.SSLContext | None = None) -> None:
        self.handler = handler
        self.tls = tls
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client left, or the test is over
        finally:
            writer.close()
            self._tasks.discard(task)

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks)
        await self._server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and content-length body; `b""` when the client closed."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


class Proxy:
    """A forward proxy: CONNECT tunnels and absolute-form requests, with what it was asked;
    given `authorization` (a `Proxy-Authorization` value), it answers 407 to any other."""

    def __init__(self, authorization: str | None = None) -> None:
        self.heads: list[bytes] = []
        self.authorization = authorization

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ")
        if self.authorization is not None:
            lines = head.decode().split("\r\n")[1:]
            fields = {k.lower(): v for k, _, v in (line.partition(": ") for line in lines)}
            if fields.get("proxy-authorization") != self.authorization:
                self.heads.append(head)
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            rest = b""
        else:
            authority = target.split("/")[2]
            host, port = authority.rsplit(":", 1)
            rest = head.replace(target.encode(), b"/" + target.split("/", 3)[3].encode(), 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        up_writer.write(rest)
        self.heads.append(head)
        await splice(reader, writer, up_reader, up_writer)


def server_tls(ca: trustme.CA) -> ssl.SSLContext:
    """A server context with a certificate from `ca` for localhost and 127.0.0.1."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(context)
    return context


def client_tls(ca: trustme.CA) -> ssl.SSLContext:
    """A client context that trusts `ca` (and nothing else)."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


class SteppedStream:
    """An event-stream origin that sends its second event only once the client has the first
    (`heard`): `streamed` is False when that took 5 s, as it would for a client that waits for
    the whole body."""

    def __init__(self) -> None:
        self.heard = asyncio.Event()
        self.requests: list[bytes] = []
        self.streamed: bool | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.requests.append(await read_request(reader))
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n" + _chunk(b"data: 1\n\n")
        )
        await writer.drain()
        try:
            await asyncio.wait_for(self.heard.wait(), 5)
            self.streamed = True
        except TimeoutError:
            self.streamed = False
        writer.write(_chunk(b"data: 2\n\n") + b"0\r\n\r\n")
        await writer.drain()


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def proxied_client(origin: str, env: dict[str, str], ca: trustme.CA | None) -> HttpClient:
    """An HTTP client for `origin` whose transport reads its proxy from `env`, trusting `ca`
    (the system's CAs when `None`)."""
    transport = HttpTransport(
        env=env,
        ssl_context=client_tls(ca) if ca else None,
        timeouts=Timeouts(connect=3, write=3, idle=3, first_event=10),
    )
    return HttpClient("mock", origin, {}, transport=transport)


async def events(http: HttpClient, origin: SteppedStream | None = None) -> list[str]:
    """The events' data, telling `origin` as soon as each arrives; the client is closed."""
    got: list[str] = []
    try:
        async for _, data in http.events("/v1/x", {}, PassThrough()):
            got.append(data)
            if origin is not None:
                origin.heard.set()
    finally:
        await http.aclose()
    return got


async def splice(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    """Copy bytes both ways between a client and its upstream until both ends close."""

    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
        dst.close()

    try:
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
    finally:
        up_writer.close()
