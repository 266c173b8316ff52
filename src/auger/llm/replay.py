"""Opaque provider data: the record a response streams it in, bound to the request it answered,
and which of it may go back in a later request — pure functions.

Some of it (Anthropic signed thinking, a Responses reasoning item's encrypted content, a Gemini
thought signature) is bound to the model that wrote it and to the request prefix it was written
after — the system prompt, the tools and the earlier messages. A wire format streams it sealed
(`Sealer`): a `ProviderData` part holding a fingerprint of that prefix. When it builds a later
request, `Replay` recomputes the fingerprint before each message and lets the part go back only
while it still matches, and only to the same provider, model and format. So a compaction, an
edited AGENTS.md (system prompt), new MCP tools or a model switch drops the data that can no
longer be sent, instead of earning an HTTP 400. Data without a fingerprint (a Responses
`phase`) goes back to the same format whatever came before.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from auger.llm.messages import AssistantMessage, Message, ProviderData, ProviderDataKind
from auger.llm.provider import Request, ToolSpec
from auger.llm.records import ProviderDataDone
from auger.llm.stored import legacy_form

_encode = msgspec.json.encode


def _start(system: str, tools: tuple[ToolSpec, ...]) -> hashlib._Hash:
    digest = hashlib.sha256()
    digest.update(_encode([system, [[t.name, t.description, t.parameters] for t in tools]]))
    return digest


def _add(digest: hashlib._Hash, message: Message, legacy: bool = False) -> None:
    data = message.to_dict()
    data.pop("usage", None)  # priced after the fact: not part of what the model saw
    digest.update(_encode(legacy_form(data) if legacy else data))


def fingerprint(system: str, tools: tuple[ToolSpec, ...], messages: tuple[Message, ...]) -> str:
    """A short digest of a request prefix: system prompt, tools, then `messages`."""
    digest = _start(system, tools)
    for message in messages:
        _add(digest, message)
    return digest.hexdigest()[:32]


class Sealer:
    """Binds the data streamed in answer to `request` to its prefix (computed once, lazily)."""

    def __init__(self, request: Request) -> None:
        self._request = request
        self._prefix: str | None = None

    def __call__(self, kind: ProviderDataKind, data: dict[str, Any]) -> ProviderDataDone:
        """The record of `data`, bound to the request's prefix."""
        if self._prefix is None:
            r = self._request
            self._prefix = fingerprint(r.system, r.tools, r.messages)
        return ProviderDataDone(ProviderData(kind, data, self._prefix))


class Replay:
    """For one request: which provider data of its earlier replies may be sent back.

    `api` is the wire format building the request; prefixes are computed only when a bound
    part asks for them.
    """

    def __init__(self, request: Request, api: str) -> None:
        self._request = request
        self._api = api
        self._prefixes: dict[bool, dict[int, str]] = {}

    def same_origin(self, message: AssistantMessage) -> bool:
        """Whether `message` came from this provider, model and wire format."""
        model = self._request.model
        return (
            message.api == self._api
            and message.provider == model.provider
            and message.model == model.name
        )

    def sendable(self, index: int, part: ProviderData) -> bool:
        """Whether `part` (of message `index`) may go back in this request."""
        message = self._request.messages[index]
        if not isinstance(message, AssistantMessage) or message.api != self._api:
            return False
        if part.prefix is None:
            return True
        return self.same_origin(message) and self._prefix(index, part.legacy) == part.prefix

    def _prefix(self, index: int, legacy: bool) -> str:
        prefixes = self._prefixes.get(legacy)
        if prefixes is None:
            request = self._request
            digest = _start(request.system, request.tools)
            prefixes = self._prefixes[legacy] = {}
            for i, message in enumerate(request.messages):
                if isinstance(message, AssistantMessage):
                    prefixes[i] = digest.hexdigest()[:32]
                _add(digest, message, legacy)
        return prefixes[index]
