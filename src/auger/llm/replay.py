"""Which provider-bound parts of earlier replies may be sent again: pure functions.

A signed reasoning block (Anthropic `thinking`, a Responses `reasoning` item with encrypted
content) is bound to the model that wrote it and to the request prefix it was written after —
the system prompt, the tools and the earlier messages. When a wire format streams one, it seals
the provider's signature together with a fingerprint of that prefix (`seal`). When it builds a
later request, `Replay` recomputes the fingerprint before each message and hands back the
signature only while it still matches, and only to the same provider, model and format. So a
compaction, an edited AGENTS.md (system prompt), new MCP tools or a model switch drops the
reasoning that can no longer be sent, instead of earning an HTTP 400. A signature stored without
a fingerprint (older sessions) is trusted as before.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from auger.llm.messages import AssistantMessage, Message, ReasoningPart
from auger.llm.provider import Request, ToolSpec

_encode = msgspec.json.encode
_decode = msgspec.json.Decoder(dict[str, Any])
_MARK = '{"sealed":'


def _start(system: str, tools: tuple[ToolSpec, ...]) -> hashlib._Hash:
    digest = hashlib.sha256()
    digest.update(_encode([system, [[t.name, t.description, t.parameters] for t in tools]]))
    return digest


def _add(digest: hashlib._Hash, message: Message) -> None:
    data = message.to_dict()
    data.pop("usage", None)  # priced after the fact: not part of what the model saw
    digest.update(_encode(data))


def fingerprint(system: str, tools: tuple[ToolSpec, ...], messages: tuple[Message, ...]) -> str:
    """A short digest of a request prefix: system prompt, tools, then `messages`."""
    digest = _start(system, tools)
    for message in messages:
        _add(digest, message)
    return digest.hexdigest()[:32]


class Sealer:
    """Binds signatures streamed in answer to `request` to its prefix (computed once, lazily)."""

    def __init__(self, request: Request) -> None:
        self._request = request
        self._prefix: str | None = None

    def __call__(self, signature: str) -> str:
        """`signature` bound to the request's prefix."""
        if self._prefix is None:
            r = self._request
            self._prefix = fingerprint(r.system, r.tools, r.messages)
        return _encode({"sealed": signature, "prefix": self._prefix}).decode()


def unseal(signature: str) -> tuple[str, str | None]:
    """The provider's own signature and the prefix it is bound to (`None`: unbound)."""
    if signature.startswith(_MARK):
        try:
            data = _decode.decode(signature)
            return str(data["sealed"]), str(data["prefix"])
        except (msgspec.DecodeError, KeyError):
            pass
    return signature, None


class Replay:
    """For one request: the signatures of its earlier replies that may still be sent back.

    `api` is the wire format building the request; prefixes are computed only when a sealed
    signature asks for them.
    """

    def __init__(self, request: Request, api: str) -> None:
        self._request = request
        self._api = api
        self._prefixes: dict[int, str] | None = None

    def same_origin(self, message: AssistantMessage) -> bool:
        """Whether `message` came from this provider, model and wire format."""
        model = self._request.model
        return (
            message.api == self._api
            and message.provider == model.provider
            and message.model == model.name
        )

    def signature(self, index: int, part: ReasoningPart) -> str | None:
        """The provider signature of `part` (of message `index`), or `None` if it cannot be sent."""
        message = self._request.messages[index]
        if part.signature is None or not isinstance(message, AssistantMessage):
            return None
        if message.api != self._api:
            return None
        raw, prefix = unseal(part.signature)
        if prefix is None:
            return raw
        if not self.same_origin(message) or self._prefix(index) != prefix:
            return None
        return raw

    def _prefix(self, index: int) -> str:
        if self._prefixes is None:
            request = self._request
            digest = _start(request.system, request.tools)
            self._prefixes = {}
            for i, message in enumerate(request.messages):
                if isinstance(message, AssistantMessage):
                    self._prefixes[i] = digest.hexdigest()[:32]
                _add(digest, message)
        return self._prefixes[index]
