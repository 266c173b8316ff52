"""Sign-ins, the credential kind beside API keys: which providers offer one, and the
`Authorizer` that keeps a kept sign-in fresh for each request."""

from __future__ import annotations

from auger.config.signin.chatgpt import ChatGPT
from auger.config.signin.copilot import Copilot
from auger.config.signin.kind import Kind

KINDS: dict[str, Kind] = {"chatgpt": ChatGPT(), "copilot": Copilot()}
"""The sign-ins auger offers, by provider. Claude Free/Pro/Max sign-in is not one of them:
Anthropic's consumer terms allow it only in Anthropic's own apps."""


def kind_of(provider: str) -> Kind | None:
    """`provider`'s sign-in, if it has one."""
    return KINDS.get(provider)
