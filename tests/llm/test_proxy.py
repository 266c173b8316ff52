"""Choosing a proxy from the environment, as curl does."""

from __future__ import annotations

import pytest

from auger.llm.proxy import Proxies, Proxy, basic_auth


@pytest.mark.parametrize(
    ("no_proxy", "host", "bypassed"),
    [
        ("", "api.openai.com", False),
        ("*", "api.openai.com", True),
        ("openai.com", "api.openai.com", True),
        (".openai.com", "api.openai.com", True),
        ("ai.com", "api.openai.com", False),
        ("localhost, 127.0.0.0/8", "127.0.0.5", True),
        ("api.openai.com:8443", "api.openai.com", False),
        ("api.openai.com:443", "api.openai.com", True),
    ],
)
def test_no_proxy(no_proxy: str, host: str, bypassed: bool):
    proxies = Proxies.from_env({"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": no_proxy})
    assert (proxies.for_url("https", host, 443) is None) == bypassed


def test_lower_case_variables_win_and_all_proxy_is_the_fallback():
    proxies = Proxies.from_env(
        {"https_proxy": "http://low:1", "HTTPS_PROXY": "http://up:2", "ALL_PROXY": "http://all:3"}
    )
    assert proxies.for_url("https", "x", 443) == Proxy("http", "low", 1)
    assert proxies.for_url("http", "x", 80) == Proxy("http", "all", 3)
    assert Proxies.from_env({}).for_url("https", "x", 443) is None


def test_basic_auth_unquotes_the_url_credentials():
    proxy = Proxies.from_env({"HTTPS_PROXY": "http://me:p%40ss@proxy:3128"}).for_url(
        "https", "x", 443
    )
    assert proxy is not None
    assert basic_auth(proxy) == "Basic bWU6cEBzcw=="


@pytest.mark.parametrize(
    ("url", "proxy"),
    [
        ("proxy:3128", Proxy("http", "proxy", 3128)),
        ("http://proxy", Proxy("http", "proxy", 80)),
        ("HTTPS://proxy", Proxy("https", "proxy", 443)),
        ("socks5h://u:p%3Aw@proxy", Proxy("socks5h", "proxy", 1080, "u", "p:w")),
        ("socks5://[::1]:9050", Proxy("socks5", "::1", 9050)),
        ("socks4a://me@proxy:1081", Proxy("socks4a", "proxy", 1081, "me")),
    ],
)
def test_every_kind_of_proxy_url(url: str, proxy: Proxy):
    assert Proxy.parse(url) == proxy


def test_no_proxy_holds_for_every_kind_of_proxy():
    for url in ("http://p:1", "https://p:1", "socks5h://p:1", "socks4a://p:1"):
        proxies = Proxies.from_env({"ALL_PROXY": url, "NO_PROXY": "127.0.0.1,.internal"})
        assert proxies.for_url("https", "127.0.0.1", 443) is None
        assert proxies.for_url("http", "llm.internal", 80) is None
        assert proxies.for_url("https", "api.openai.com", 443) == Proxy.parse(url)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("ftp://me:hunter22@proxy:21", "ftp://proxy:21: auger speaks http://, https://, socks5://"),
        ("socks5://me:hunter22@proxy:port", "socks5://proxy:port: the port is not a number"),
        ("socks5://me:hunter22@", "socks5://: no host"),
    ],
)
def test_an_unusable_proxy_is_named_without_its_credentials(url: str, problem: str):
    message = Proxies.from_env({"ALL_PROXY": url}).unsupported()
    assert message is not None
    assert message.startswith("HTTP_PROXY (or ALL_PROXY) is " + problem)
    assert "hunter22" not in message and "me:" not in message


def test_shown_and_repr_leave_the_credentials_out():
    proxy = Proxy.parse("https://me:hunter22@[::1]:8443")
    assert proxy.shown == "https://[::1]:8443"
    assert repr(proxy) == str(proxy) == "Proxy('https://[::1]:8443')"


def test_the_settings_repr_leaves_the_credentials_out():
    proxies = Proxies.from_env({"ALL_PROXY": "socks5h://me:hunter22@p:1080", "NO_PROXY": "x"})
    assert repr(proxies) == (
        "Proxies(http='socks5h://p:1080', https='socks5h://p:1080', no_proxy=('x',))"
    )
