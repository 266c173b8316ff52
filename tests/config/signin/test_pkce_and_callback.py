"""PKCE (RFC 7636) and the loopback callback a browser sign-in comes back to (RFC 8252 §7.3)."""

from __future__ import annotations

import asyncio
import re
import socket
from urllib.parse import parse_qs, urlsplit

import pytest

from auger.config.signin.chatgpt import CLIENT_ID, authorize_url, challenge, pkce
from auger.config.signin.loopback import Callback
from auger.config.signin.web import SignInError


def test_the_challenge_is_s256_of_the_verifier_as_rfc_7636_appendix_b_computes_it() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_each_verifier_is_fresh_url_safe_and_within_the_allowed_length() -> None:
    (one, c1), (two, _) = pkce(), pkce()
    assert one != two and c1 == challenge(one)
    assert re.fullmatch(r"[A-Za-z0-9\-._~]{43,128}", one)


def test_the_authorize_url_asks_for_s256_a_refresh_token_and_the_loopback() -> None:
    url = authorize_url("https://auth.example", "http://localhost:1455/auth/callback", "ch", "st")
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert url.startswith("https://auth.example/oauth/authorize?")
    assert query["client_id"] == CLIENT_ID and query["response_type"] == "code"
    assert query["code_challenge"] == "ch" and query["code_challenge_method"] == "S256"
    assert "offline_access" in query["scope"].split() and query["state"] == "st"


async def _get(port: int, target: str) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nhost: localhost\r\n\r\n".encode())
    await writer.drain()
    answer = (await reader.read()).decode()
    writer.close()
    return answer.split("\r\n", 1)[0]


async def test_a_forged_state_is_refused_and_the_real_answer_still_counts() -> None:
    callback = Callback("/auth/callback", "good")
    port = await callback.start((0,))
    try:
        assert "400" in await _get(port, "/auth/callback?code=evil&state=bad")
        assert "404" in await _get(port, "/elsewhere?code=x&state=good")
        assert "200" in await _get(port, "/auth/callback?code=real&state=good")
        assert await callback.code(5) == "real"
    finally:
        await callback.close()


async def test_a_refusal_in_the_callback_fails_the_sign_in_with_its_reason() -> None:
    callback = Callback("/auth/callback", "s")
    port = await callback.start((0,))
    try:
        await _get(port, "/auth/callback?state=s&error=access_denied&error_description=no+seat")
        with pytest.raises(SignInError, match="no seat"):
            await callback.code(5)
    finally:
        await callback.close()


async def test_taken_ports_say_how_to_sign_in_anyway() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SignInError, match="--device"):
            await Callback("/auth/callback", "s").start((port,))
