"""The table of wire formats: API name → provider class, whether it needs a key, its URL rule.

This is the one place that knows the API names. Adding a format is one module whose provider
class has a `from_endpoint(endpoint, transport)` constructor, and one row in `FORMATS`.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Literal, Protocol, get_args

import msgspec

from auger.llm.auth import Authorizer
from auger.llm.provider import Provider

ApiName = Literal[
    "messages",
    "responses",
    "chat-completions",
    "gemini",
    "bedrock",
    "vertex",
    "llamacpp",
    "scripted",
]
"""The wire formats auger speaks."""

UrlRule = Literal["host", "versioned", "none"]
"""How a base URL is written: the bare host (`https://api.anthropic.com`; the provider adds
`/v1/…`), up to and including the version (`https://api.openai.com/v1`; the provider adds
`/responses`), or no URL at all."""

API_NAMES: tuple[ApiName, ...] = get_args(ApiName)


class Endpoint(msgspec.Struct, frozen=True):
    """What a provider class is built from: one provider's name, URL, key, headers and options.

    `compat` holds the format's own options (e.g. which field carries `max_tokens`); each
    provider class validates it into its own struct. `auth` supplies credentials that change
    from request to request (a sign-in), in place of a fixed `api_key`.
    """

    name: str
    base_url: str = ""
    api_key: str | None = None
    key_env: str | None = None
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    compat: dict[str, Any] = msgspec.field(default_factory=dict)
    script: str | None = None
    auth: Authorizer | None = None
    cache: dict[str, Any] = msgspec.field(default_factory=dict)  # settings' "cache" object


class ProviderClass(Protocol):
    """A wire format's provider class, as the table builds it."""

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, transport: Any = None) -> Provider:
        """A provider for `endpoint`; raises `ValueError` when the endpoint cannot be used."""
        ...


class WireFormat(msgspec.Struct, frozen=True):
    """One row of the table; `target` is `module:Class`, imported only when first built."""

    api: ApiName
    target: str
    needs_key: bool
    url: UrlRule
    compat_env: dict[str, str] = msgspec.field(default_factory=dict)
    """`compat` options the session's environment sets (option → variable), over settings'."""

    def load(self) -> ProviderClass:
        """The provider class (its module is imported now)."""
        module, _, name = self.target.partition(":")
        cls: ProviderClass = getattr(import_module(module), name)
        return cls

    def base_url(self, url: str) -> str:
        """`url` as the provider class expects it; a host written with `/v1` loses it."""
        url = url.strip().rstrip("/")
        if self.url == "host" and url.endswith("/v1"):
            url = url[: -len("/v1")]
        return url

    def build(self, endpoint: Endpoint, transport: Any = None) -> Provider:
        """A provider of this format for `endpoint`."""
        endpoint = msgspec.structs.replace(endpoint, base_url=self.base_url(endpoint.base_url))
        return self.load().from_endpoint(endpoint, transport)


FORMATS: dict[ApiName, WireFormat] = {
    "messages": WireFormat("messages", "auger.llm.anthropic:AnthropicProvider", True, "host"),
    "responses": WireFormat(
        "responses", "auger.llm.openai_responses:OpenAIResponsesProvider", True, "versioned"
    ),
    "chat-completions": WireFormat(
        "chat-completions", "auger.llm.openai_chat:OpenAIChatProvider", False, "versioned"
    ),
    "gemini": WireFormat("gemini", "auger.llm.gemini:GeminiProvider", True, "versioned"),
    "bedrock": WireFormat("bedrock", "auger.llm.bedrock:BedrockProvider", False, "host"),
    "vertex": WireFormat("vertex", "auger.llm.vertex:VertexProvider", False, "versioned"),
    "llamacpp": WireFormat(
        "llamacpp",
        "auger.llm.local:LocalProvider",
        False,
        "none",
        {"hub_endpoint": "HF_ENDPOINT"},  # huggingface_hub's own variable, for `hf:` names
    ),
    "scripted": WireFormat("scripted", "auger.llm.scripted:ScriptedProvider", False, "none"),
}


def wire_format(api: object) -> WireFormat | None:
    """The row for `api`, or `None` when no format has that name."""
    return FORMATS.get(api) if isinstance(api, str) else None  # type: ignore[call-overload]
