"""A signed-in endpoint over real HTTP: its `Authorizer` puts fresh credentials on each request
(before the extension hooks see it), and a 401 renews them and sends the request once more."""

from __future__ import annotations

from typing import Any

import pytest

from auger.llm.errors import ProviderError
from auger.llm.formats import Endpoint
from auger.llm.messages import UserMessage
from auger.llm.openai_chat import OpenAIChatProvider
from auger.llm.provider import Model, Request
from auger.llm.records import Record, TextDone
from support.server import FakeServer, Reply
from support.strict import Step, chat_reply

_EXPIRED = Reply(401, b'{"error": {"message": "token expired"}}')
_REQUEST = Request(Model("p", "m", "chat-completions"), "", (UserMessage.of("hi"),))


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


class Hooks:
    """An exchange that records what the extension hooks would see."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        self.seen.append(headers.get("authorization", ""))
        return headers, body

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """Nothing to do."""


async def _ask(server: FakeServer, auth: Tokens, hooks: Hooks | None = None) -> list[Record]:
    provider = OpenAIChatProvider.from_endpoint(Endpoint("p", server.url, auth=auth))
    try:
        return [r async for r in provider.stream(_REQUEST, hooks or Hooks())]
    finally:
        await provider.aclose()


async def test_a_401_renews_the_credentials_and_sends_the_request_once_more(
    fake_server: FakeServer,
) -> None:
    fake_server.queue(_EXPIRED, Reply(body=chat_reply(Step("hi"), "t", None, 1)))
    auth, hooks = Tokens(), Hooks()
    records = await _ask(fake_server, auth, hooks)
    assert [r.content for r in records if isinstance(r, TextDone)] == ["hi"]
    sent = [(r.headers["authorization"], r.body["n"]) for r in fake_server.requests]
    assert sent == [("Bearer t1", 1), ("Bearer t2", 2)] and auth.renewals == 1
    assert hooks.seen == ["Bearer t1", "Bearer t2"]  # the hooks see what is sent


async def test_a_second_401_is_an_auth_error_not_a_loop(fake_server: FakeServer) -> None:
    fake_server.queue(_EXPIRED, _EXPIRED, Reply(body=chat_reply(Step("hi"), "t", None, 1)))
    with pytest.raises(ProviderError) as caught:
        await _ask(fake_server, Tokens())
    assert caught.value.kind == "auth" and len(fake_server.requests) == 2


async def test_a_401_the_credentials_cannot_answer_is_not_sent_again(
    fake_server: FakeServer,
) -> None:
    fake_server.queue(_EXPIRED, Reply(body=chat_reply(Step("hi"), "t", None, 1)))
    with pytest.raises(ProviderError, match="token expired"):
        await _ask(fake_server, Tokens(renewable=False))
    assert len(fake_server.requests) == 1
