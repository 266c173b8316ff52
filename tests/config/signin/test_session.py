"""A kept sign-in as a provider's `Authorizer`: renewed before it expires, written back, and a
renewal that cannot happen classified (sign in again, or try again later)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from auger.config.credentials import load_signin, save_signin
from auger.config.signin import KINDS
from auger.config.signin.session import SignedIn
from auger.llm.errors import ProviderError
from auger.llm.transport import HttpTransport
from support.signin import ACCOUNT, AuthServer


@pytest.fixture
def server() -> Iterator[AuthServer]:
    with AuthServer() as stand_in:
        yield stand_in


def _signed_in(home: Path, issuer: str, **entry: object) -> SignedIn:
    save_signin(home, "chatgpt", {"account_id": ACCOUNT, "models_at": time.time(), **entry})
    urls = {"issuer": issuer, "api": issuer + "/backend-api/codex"}
    return SignedIn(KINDS["chatgpt"], home, urls, HttpTransport())


async def test_concurrent_requests_with_an_expired_token_renew_it_once(
    tmp_path: Path, server: AuthServer
) -> None:
    access, refresh = server.tokens()
    auth = _signed_in(tmp_path, server.url, access=access, refresh=refresh, expires=0)
    try:
        sent = await asyncio.gather(*(auth.prepare({}, {"max_output_tokens": 9}) for _ in range(4)))
    finally:
        await auth.transport.aclose()
    assert server.paths() == ["/oauth/token"]  # one renewal serves all four
    assert len({headers["authorization"] for headers, _ in sent}) == 1
    assert all(body == {} for _, body in sent)  # the plan's endpoint takes no max_output_tokens
    kept = load_signin(tmp_path, "chatgpt")
    assert kept is not None and kept["refresh"] != refresh and kept["expires"] > time.time()


async def test_a_revoked_refresh_token_is_an_auth_error_that_says_sign_in_again(
    tmp_path: Path, server: AuthServer
) -> None:
    access, refresh = server.tokens()
    server.revoke()
    auth = _signed_in(tmp_path, server.url, access=access, refresh=refresh, expires=0)
    with pytest.raises(ProviderError) as caught:
        await auth.prepare({}, {})
    await auth.transport.aclose()
    assert caught.value.kind == "auth" and not caught.value.retryable
    assert "sign in again: auger login chatgpt" in caught.value.message


async def test_an_unreachable_token_endpoint_is_a_network_error_worth_retrying(
    tmp_path: Path,
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    auth = _signed_in(tmp_path, closed, access="a", refresh="r", expires=0)
    with pytest.raises(ProviderError) as caught:
        await auth.prepare({}, {})
    await auth.transport.aclose()
    assert caught.value.kind == "network" and caught.value.retryable
    assert json.loads((tmp_path / "auth.json").read_text())["signin"]["chatgpt"]["refresh"] == "r"


async def test_no_sign_in_kept_is_an_auth_error_naming_the_login(tmp_path: Path) -> None:
    auth = SignedIn(KINDS["copilot"], tmp_path, {}, HttpTransport())
    with pytest.raises(ProviderError, match="not signed in — sign in again: auger login copilot"):
        await auth.prepare({}, {})


async def test_a_renewal_another_session_made_is_taken_up_not_repeated(
    tmp_path: Path, server: AuthServer
) -> None:
    a1, r1 = server.tokens()
    auth = _signed_in(tmp_path, server.url, access=a1, refresh=r1, expires=time.time() + 3600)
    try:
        first, _ = await auth.prepare({}, {})
        a2, r2 = server.tokens()  # another auger renewed meanwhile; r1 is spent
        server.revoke()
        save_signin(
            tmp_path, "chatgpt", {"access": a2, "refresh": r2, "expires": time.time() + 3600}
        )
        assert await auth.rejected()  # the server refused a1
        second, _ = await auth.prepare({}, {})
    finally:
        await auth.transport.aclose()
    assert (first["authorization"], second["authorization"]) == (f"Bearer {a1}", f"Bearer {a2}")
    assert "/oauth/token" not in server.paths()
