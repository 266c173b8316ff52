"""Provider requests through a real SOCKS proxy on 127.0.0.1 (`support.socks`): SOCKS5 and 5h
with and without a login, SOCKS4 and 4a, streaming intact, and each way a proxy fails."""

from __future__ import annotations

import asyncio

import pytest
import trustme

from auger.llm.errors import ProviderError
from support.sockets import Server, SteppedStream, events, proxied_client, server_tls
from support.socks import Asked, SocksProxy


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.mark.parametrize(
    ("scheme", "asked"),
    [
        ("socks5h", Asked(5, "name", "localhost", 0, "me")),  # the proxy resolves the name
        ("socks5", Asked(5, "ipv4", "127.0.0.1", 0, "me")),  # resolved here
    ],
)
async def test_an_https_stream_through_a_socks5_proxy_with_a_login(
    ca: trustme.CA, scheme: str, asked: Asked
):
    origin, proxy = SteppedStream(), SocksProxy(credentials=("me", "pa:ss"))
    async with (
        Server(origin.handle, tls=server_tls(ca)) as server,
        Server(proxy.handle) as hop,
    ):
        proxy_url = f"{scheme}://me:pa%3Ass@127.0.0.1:{hop.port}"
        http = proxied_client(f"https://localhost:{server.port}", {"ALL_PROXY": proxy_url}, ca)
        assert await events(http, origin) == ["1", "2"]
    assert origin.streamed  # the first event arrived before the origin sent the second
    assert proxy.asked == [Asked(5, asked.address, asked.host, server.port, "me")]
    assert origin.requests[0].startswith(b"POST /v1/x HTTP/1.1\r\n")


@pytest.mark.parametrize(
    ("scheme", "address", "host"),
    [("socks4a", "name", "localhost"), ("socks4", "ipv4", "127.0.0.1")],
)
async def test_plain_http_through_a_socks4_proxy(
    ca: trustme.CA, scheme: str, address: str, host: str
):
    origin, proxy = SteppedStream(), SocksProxy()
    async with Server(origin.handle) as server, Server(proxy.handle) as hop:
        http = proxied_client(
            f"http://localhost:{server.port}",
            {"ALL_PROXY": f"{scheme}://id7@127.0.0.1:{hop.port}"},
            ca,
        )
        assert await events(http, origin) == ["1", "2"]
    assert origin.streamed
    assert proxy.asked == [Asked(4, address, host, server.port, "id7")]
    # through a tunnel the request is in origin form, and no proxy header reaches the origin
    assert origin.requests[0].startswith(b"POST /v1/x HTTP/1.1\r\n")
    assert b"proxy-authorization" not in origin.requests[0].lower()


async def test_no_proxy_bypasses_a_socks_proxy(ca: trustme.CA):
    near, far, proxy = SteppedStream(), SteppedStream(), SocksProxy()
    async with (
        Server(near.handle) as direct,
        Server(far.handle) as proxied,
        Server(proxy.handle) as hop,
    ):
        socks = f"socks5h://127.0.0.1:{hop.port}"
        for origin, url in (
            (near, f"http://127.0.0.1:{direct.port}"),
            (far, f"http://localhost:{proxied.port}"),
        ):
            http = proxied_client(url, {"ALL_PROXY": socks, "NO_PROXY": "127.0.0.0/8"}, ca)
            assert await events(http, origin) == ["1", "2"]
    assert proxy.asked == [Asked(5, "name", "localhost", proxied.port)]  # 127.0.0.1 went direct
    assert (direct.connections, proxied.connections, hop.connections) == (1, 1, 1)


async def failure(ca: trustme.CA, proxy_url: str) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await events(proxied_client("https://api.example.test", {"ALL_PROXY": proxy_url}, ca))
    return caught.value


async def test_a_refused_login_is_an_auth_error_without_the_password(ca: trustme.CA):
    proxy = SocksProxy(credentials=("me", "right"))
    async with Server(proxy.handle) as hop:
        error = await failure(ca, f"socks5h://me:wrong-secret@127.0.0.1:{hop.port}")
    assert proxy.refused_logins == [("me", "wrong-secret")]
    assert error.kind == "auth" and not error.retryable
    assert error.message == (
        f"mock: cannot connect to api.example.test:443 through socks5h://127.0.0.1:{hop.port}: "
        "the SOCKS5 proxy refused the username and password"
    )


async def test_a_proxy_that_wants_a_login_we_lack(ca: trustme.CA):
    async with Server(SocksProxy(credentials=("me", "pw")).handle) as hop:
        error = await failure(ca, f"socks5://127.0.0.1:{hop.port}")
    assert error.kind == "auth"
    assert error.message.endswith("the SOCKS5 proxy wants a username and password")


@pytest.mark.parametrize(
    ("reply", "kind", "reason"),
    [
        (5, "network", "connection refused"),
        (4, "network", "host unreachable"),
        (2, "auth", "connection not allowed by ruleset"),
    ],
)
async def test_a_socks5_failure_reply(ca: trustme.CA, reply: int, kind: str, reason: str):
    async with Server(SocksProxy(reply=reply).handle) as hop:
        error = await failure(ca, f"socks5h://127.0.0.1:{hop.port}")
    assert error.kind == kind
    assert error.message.endswith(
        f"the SOCKS5 proxy could not reach api.example.test:443: {reason}"
    )


async def test_a_socks4a_rejection(ca: trustme.CA):
    async with Server(SocksProxy(reply=91).handle) as hop:
        error = await failure(ca, f"socks4a://127.0.0.1:{hop.port}")
    assert error.kind == "network" and error.retryable
    assert error.message.endswith(
        "could not reach api.example.test:443: request rejected or failed"
    )


async def test_an_unreachable_proxy_is_a_network_error_without_the_password(ca: trustme.CA):
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    error = await failure(ca, f"socks5h://me:hunter22@127.0.0.1:{port}")
    assert error.kind == "network" and error.retryable
    assert error.message.startswith(
        f"mock: cannot connect to api.example.test:443 through socks5h://127.0.0.1:{port}: "
    )
    assert "hunter22" not in error.message


async def test_a_server_that_does_not_speak_socks(ca: trustme.CA):
    async def http_only(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(3)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    async with Server(http_only) as hop:
        error = await failure(ca, f"socks5h://127.0.0.1:{hop.port}")
    assert error.kind == "network"
    assert error.message.endswith("the proxy does not speak SOCKS5")


async def test_a_proxy_that_hangs_up_mid_handshake(ca: trustme.CA):
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(3)
        writer.write(b"\x05")

    async with Server(hang_up) as hop:
        error = await failure(ca, f"socks5h://127.0.0.1:{hop.port}")
    assert error.kind == "network"
    assert error.message.endswith("the SOCKS proxy closed the connection mid-handshake")
