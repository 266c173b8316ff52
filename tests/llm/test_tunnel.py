"""Provider requests through a real https:// proxy on 127.0.0.1 — TLS to the proxy, then the
origin's TLS inside the CONNECT tunnel — and the ways an HTTP proxy refuses."""

from __future__ import annotations

import pytest
import trustme

from auger.llm.errors import ProviderError
from support.sockets import (
    Proxy,
    Server,
    SteppedStream,
    events,
    proxied_client,
    server_tls,
)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


async def test_an_https_stream_through_an_https_proxy(ca: trustme.CA):
    origin, proxy = SteppedStream(), Proxy(authorization="Basic bWU6cEBzcw==")  # me:p@ss
    async with (
        Server(origin.handle, tls=server_tls(ca)) as server,
        Server(proxy.handle, tls=server_tls(ca)) as hop,
    ):
        env = {"HTTPS_PROXY": f"https://me:p%40ss@localhost:{hop.port}"}
        http = proxied_client(f"https://localhost:{server.port}", env, ca)
        assert await events(http, origin) == ["1", "2"]
    assert origin.streamed  # the first event arrived before the origin sent the second
    (head,) = proxy.heads
    assert head.startswith(f"CONNECT localhost:{server.port} HTTP/1.1\r\n".encode())
    assert origin.requests[0].startswith(b"POST /v1/x HTTP/1.1\r\n")
    assert b"proxy-authorization" not in origin.requests[0].lower()


async def test_plain_http_through_an_https_proxy_is_forwarded_over_tls(ca: trustme.CA):
    origin, proxy = SteppedStream(), Proxy()
    async with (
        Server(origin.handle) as server,
        Server(proxy.handle, tls=server_tls(ca)) as hop,
    ):
        env = {"HTTP_PROXY": f"https://me:pw@127.0.0.1:{hop.port}"}
        http = proxied_client(f"http://127.0.0.1:{server.port}", env, ca)
        assert await events(http, origin) == ["1", "2"]
    assert origin.streamed
    (head,) = proxy.heads
    assert head.startswith(f"POST http://127.0.0.1:{server.port}/v1/x HTTP/1.1\r\n".encode())
    assert b"proxy-authorization: Basic bWU6cHc=\r\n" in head


async def test_no_proxy_bypasses_an_https_proxy(ca: trustme.CA):
    near, far, proxy, tls = SteppedStream(), SteppedStream(), Proxy(), server_tls(ca)
    async with (
        Server(near.handle, tls=tls) as direct,
        Server(far.handle, tls=tls) as proxied,
        Server(proxy.handle, tls=tls) as hop,
    ):
        env = {"HTTPS_PROXY": f"https://localhost:{hop.port}", "NO_PROXY": "127.0.0.1"}
        for origin, url in (
            (near, f"https://127.0.0.1:{direct.port}"),
            (far, f"https://localhost:{proxied.port}"),
        ):
            assert await events(proxied_client(url, env, ca), origin) == ["1", "2"]
    (head,) = proxy.heads  # 127.0.0.1 went direct
    assert head.startswith(f"CONNECT localhost:{proxied.port} ".encode())
    assert (direct.connections, proxied.connections, hop.connections) == (1, 1, 1)


async def test_a_refused_login_is_an_auth_error_without_the_password(ca: trustme.CA):
    proxy = Proxy(authorization="Basic c29tZW9uZTplbHNl")
    async with Server(proxy.handle, tls=server_tls(ca)) as hop:
        env = {"HTTPS_PROXY": f"https://me:hunter22@localhost:{hop.port}"}
        with pytest.raises(ProviderError) as caught:
            await events(proxied_client("https://api.example.test", env, ca))
    assert len(proxy.heads) == 1  # it did ask, over TLS
    assert caught.value.kind == "auth" and not caught.value.retryable
    assert caught.value.message == (
        f"mock: cannot connect to api.example.test:443 through https://localhost:{hop.port}: "
        "the proxy answered CONNECT with 407 Proxy Authentication Required"
    )


async def test_an_https_proxy_with_an_untrusted_certificate(ca: trustme.CA):
    async with Server(Proxy().handle, tls=server_tls(ca)) as hop:
        env = {"HTTPS_PROXY": f"https://me:hunter22@localhost:{hop.port}"}
        with pytest.raises(ProviderError) as caught:
            await events(proxied_client("https://api.example.test", env, None))  # the system's CAs
    assert caught.value.kind == "network"
    assert caught.value.message.startswith(
        f"mock: cannot connect to api.example.test:443 through https://localhost:{hop.port}: "
    )
    assert "CERTIFICATE_VERIFY_FAILED" in caught.value.message
    assert "hunter22" not in caught.value.message
