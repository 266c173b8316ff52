"""Choosing a proxy from the environment, as curl does."""

from __future__ import annotations

import pytest

from auger.llm.proxy import Proxies, basic_auth


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
    assert proxies.for_url("https", "x", 443).hostname == "low"
    assert proxies.for_url("http", "x", 80).hostname == "all"
    assert Proxies.from_env({}).for_url("https", "x", 443) is None


def test_basic_auth_unquotes_the_url_credentials():
    proxy = Proxies.from_env({"HTTPS_PROXY": "http://me:p%40ss@proxy:3128"}).for_url(
        "https", "x", 443
    )
    assert proxy is not None
    assert basic_auth(proxy) == "Basic bWU6cEBzcw=="
