"""The `http` settings: timeouts reach the transport, bad values are one clear line."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from auger.config.errors import ConfigError
from auger.config.http import transport_from
from auger.llm.transport import Timeouts
from auger.runtime import Runtime
from support.chat import text
from support.sockets import Proxy, Server, read_request
from support.socks import Asked, SocksProxy


def test_defaults():
    transport = transport_from({}, {})
    assert transport.timeouts == Timeouts()
    assert transport.timeouts.idle == 90.0
    assert transport.timeouts.attempt == 3600.0  # generous: a long answer is not cut


def test_settings_set_the_timeouts_and_env_the_proxy():
    transport = transport_from(
        {"HTTPS_PROXY": "http://proxy:3128"},
        {
            "http": {
                "idle_timeout": 5,
                "connect_timeout": 2.5,
                "first_event_timeout": 60,
                "attempt_timeout": 600,
            }
        },
    )
    assert transport.timeouts == Timeouts(connect=2.5, idle=5.0, first_event=60.0, attempt=600.0)
    assert transport._proxies.https == "http://proxy:3128"


@pytest.mark.parametrize("value", ["90", 0, -1, float("nan"), True, None])
def test_a_bad_timeout_names_the_key(value: object):
    with pytest.raises(ConfigError, match=r'"http.idle_timeout" must be a positive number'):
        transport_from({}, {"http": {"idle_timeout": value}})


def test_a_proxy_that_cannot_be_used_is_a_configuration_error_without_its_password():
    with pytest.raises(ConfigError) as caught:
        transport_from({"ALL_PROXY": "ftp://me:hunter22@p:21"}, {})
    assert str(caught.value) == (
        "HTTP_PROXY (or ALL_PROXY) is ftp://p:21: auger speaks http://, https://, socks5://, "
        "socks5h://, socks4://, socks4a://"
    )


@pytest.mark.parametrize("url", ["https://p", "socks5://p:1080", "socks5h://u:p@p", "socks4a://p"])
def test_https_and_socks_proxies_are_accepted(url: str):
    assert transport_from({"ALL_PROXY": url}, {})._proxies.https == url


def test_http_must_be_an_object():
    with pytest.raises(ConfigError, match='settings "http" must be an object'):
        transport_from({}, {"http": [90]})


async def test_a_silent_server_ends_the_turn_after_the_idle_timeout(tmp_path: Path):
    done = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        await done.wait()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = {
        "providers": {
            "local": {"api": "chat-completions", "base_url": f"http://127.0.0.1:{port}/v1"}
        },
        "http": {"idle_timeout": 0.2},
        "retry": {"attempts": 1},
    }
    runtime = Runtime(
        "local/m", settings=settings, env={}, home=tmp_path, cwd=tmp_path, bundled=False
    )
    try:
        records = [r async for r in runtime.prompt("hi")]
    finally:
        await runtime.close()
        done.set()
        server.close()
        await server.wait_closed()
    end = records[-1]
    assert end.type == "turn_end" and end.stop_reason == "error"
    assert end.error["message"] == "local: no data from 127.0.0.1 for 0.2 s (http.idle_timeout)"


async def ask_through(
    tmp: Path, proxy_env: Callable[[int], dict[str, str]], handle: Any
) -> tuple[str, int]:
    """A Runtime's answer from a local provider, reached through the proxy `handle` serves
    (its port given to `proxy_env`), and the provider's port."""
    reply = text("Hello through the proxy.").body

    async def origin(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(reply), reply)
        )
        await writer.drain()

    async with Server(origin) as server, Server(handle) as hop:
        base = f"http://localhost:{server.port}/v1"
        settings = {"providers": {"local": {"api": "chat-completions", "base_url": base}}}
        runtime = Runtime(
            "local/m", settings=settings, env=proxy_env(hop.port), home=tmp, cwd=tmp, bundled=False
        )
        try:
            answer = await runtime.ask("hi")
        finally:
            await runtime.close()
    return answer.text, server.port


async def test_a_runtime_reaches_its_provider_through_the_proxy_in_its_env(tmp_path: Path):
    proxy = Proxy()
    env = lambda port: {"HTTP_PROXY": f"http://127.0.0.1:{port}"}  # noqa: E731
    answer, port = await ask_through(tmp_path, env, proxy.handle)
    assert answer == "Hello through the proxy."
    wanted = f"POST http://localhost:{port}/v1/chat/completions HTTP/1.1"
    assert proxy.heads[0].startswith(wanted.encode())


async def test_a_runtime_reaches_its_provider_through_a_socks_proxy_in_its_env(tmp_path: Path):
    proxy = SocksProxy(credentials=("me", "pw"))
    env = lambda port: {"ALL_PROXY": f"socks5h://me:pw@127.0.0.1:{port}"}  # noqa: E731
    answer, port = await ask_through(tmp_path, env, proxy.handle)
    assert answer == "Hello through the proxy."
    assert proxy.asked == [Asked(5, "name", "localhost", port, "me")]
