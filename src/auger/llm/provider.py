"""What a provider is: a request in, a stream of provider records out."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol, runtime_checkable

import msgspec

from auger.llm.messages import Message
from auger.llm.records import Record
from auger.llm.usage import ZERO, Pricing, Usage

ThinkingStyle = Literal["budget", "adaptive", "effort"]
"""How a model is asked to reason: a token budget (Anthropic `enabled` + `budget_tokens`),
Anthropic's `adaptive` thinking with `output_config.effort`, or an OpenAI-style effort."""


class Model(msgspec.Struct, frozen=True):
    """A model as the catalog (or settings) describes it."""

    provider: str
    name: str
    api: str
    context_window: int = 128_000
    max_output: int = 16_384
    pricing: Pricing | None = None
    reasoning: bool = False
    thinking: ThinkingStyle | None = None  # None: the wire format's default

    @property
    def id(self) -> str:
        """`provider/name`."""
        return f"{self.provider}/{self.name}"

    @property
    def no_usage(self) -> Usage:
        """Zero tokens; a cost of zero when the model is priced, unknown when it is not."""
        return ZERO if self.pricing is not None else Usage()

    def price(self, usage: Usage) -> Usage:
        """`usage` with its cost filled in, or left `None` when the model is not priced."""
        if self.pricing is None:
            return usage
        return msgspec.structs.replace(usage, cost=self.pricing.price(usage))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"provider": self.provider, "name": self.name, "api": self.api}


class ToolSpec(msgspec.Struct, frozen=True):
    """A tool as a model sees it: a name, a description and a JSON schema for its input."""

    name: str
    description: str
    parameters: dict[str, Any] = msgspec.field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


class Request(msgspec.Struct, frozen=True):
    """One model call. `reasoning` is an effort (`low`, `medium`, `high`) or `None` for off."""

    model: Model
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int | None = None
    reasoning: str | None = None
    cache_key: str | None = None  # one per session, for providers that route by it
    server_tools: tuple[str, ...] = ()
    """Tools the provider runs itself, for the wire formats that have them (`web_search`)."""


class Exchange(Protocol):
    """Hooks the runtime lends a provider for one HTTP attempt."""

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """May change the headers and body about to be sent."""
        ...

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """Observes the response status and headers."""
        ...


@runtime_checkable
class ShowsProgress(Protocol):
    """An exchange that can show slow work to the user (the engine's: the host's spinner)."""

    def progress(self, label: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Shows `label` while the context is open."""
        ...


def progress(exchange: Exchange, label: str) -> contextlib.AbstractAsyncContextManager[None]:
    """`async with progress(exchange, "loading x")`: the host shows `label` while a provider
    does slow work before its request (a model loading); nothing when it cannot."""
    if isinstance(exchange, ShowsProgress):
        return exchange.progress(label)
    return contextlib.nullcontext()


class PassThrough:
    """An exchange that changes nothing."""

    async def before_request(
        self, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Send as is."""
        return headers, body

    async def after_response(self, url: str, status: int, headers: dict[str, str]) -> None:
        """Nothing to observe."""


class Provider(Protocol):
    """Streams the records of one model response; raises `ProviderError` on failure.

    A stream that ends without its terminal event raises `ProviderError("incomplete", …)`.
    """

    name: str

    def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        """The records of one attempt."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
