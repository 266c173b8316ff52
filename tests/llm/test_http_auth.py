"""Sign-in credentials on the wire: asked for before each request, renewed once on a 401."""

from __future__ import annotations

from typing import Any

import pytest

from auger.llm.errors import ProviderError
from auger.llm.http import HttpClient
from auger.llm.provider import PassThrough
from support.server import FakeServer, Reply, sse

_OK = sse({"ok": 1})
_EXPIRED = Reply(401, b'{"error": {"message": "token expired"}}')


class Tokens:
    """Hands out token 1, then a new one each time the server refuses the last."""

    def __init__(self, renewable: bool = True) -> None:
        self.token = 1
        self.renewals = 0
        self.renewable = renewable

    async def prepare(
        self, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        return headers | {"authorization": f"Bearer t{self.token}"}, body | {"n": self.token}

    async def rejected(self) -> bool:
        self.renewals += 1
        self.token += 1
        return self.renewable


async def _events(server: FakeServer, auth: Tokens | None) -> list[tuple[str, str]]:
    client = HttpClient("p", server.url, {}, key_env="P_KEY", auth=auth)  # type: ignore[arg-type]
    try:
        return [e async for e in client.events("/x", {}, PassThrough())]
    finally:
        await client.aclose()


async def test_a_401_renews_the_credentials_and_sends_the_request_once_more(
    fake_server: FakeServer,
) -> None:
    fake_server.queue(_EXPIRED, Reply(body=_OK))
    auth = Tokens()
    assert len(await _events(fake_server, auth)) == 1
    sent = [(r.headers["authorization"], r.body["n"]) for r in fake_server.requests]
    assert sent == [("Bearer t1", 1), ("Bearer t2", 2)] and auth.renewals == 1


async def test_a_second_401_is_an_auth_error_not_a_loop(fake_server: FakeServer) -> None:
    fake_server.queue(_EXPIRED, _EXPIRED, Reply(body=_OK))
    with pytest.raises(ProviderError) as caught:
        await _events(fake_server, Tokens())
    assert caught.value.kind == "auth" and len(fake_server.requests) == 2
    assert "P_KEY" not in caught.value.message  # a sign-in is not fixed by setting a key


async def test_a_401_the_credentials_cannot_answer_is_not_sent_again(
    fake_server: FakeServer,
) -> None:
    fake_server.queue(_EXPIRED, Reply(body=_OK))
    with pytest.raises(ProviderError, match="token expired"):
        await _events(fake_server, Tokens(renewable=False))
    assert len(fake_server.requests) == 1


async def test_without_a_sign_in_a_401_is_reported_at_once(fake_server: FakeServer) -> None:
    fake_server.queue(_EXPIRED, Reply(body=_OK))
    with pytest.raises(ProviderError, match="set P_KEY"):
        await _events(fake_server, None)
    assert len(fake_server.requests) == 1
