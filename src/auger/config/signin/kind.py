"""What every sign-in shares: the kept entry, the expiry rule, how a flow talks to its user."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from auger.config.signin.web import SignInError
from auger.llm.transport import Transport

Entry = dict[str, Any]
"""A sign-in as auth.json keeps it: `access`, `refresh`, `expires` (Unix seconds), and what
its provider adds."""

MARGIN = 60.0
"""Seconds before expiry at which a token counts as expired (a request must not outlive it)."""

MODELS_TTL = 24 * 3600.0
"""How long the account's list of models is kept before a renewal fetches it again."""


class Revoked(SignInError):
    """The provider refused to renew a sign-in (revoked, expired for good): sign in again."""


class Screen(Protocol):
    """Where a flow shows its URL or code, and waits with a spinner while the user acts."""

    async def say(self, text: str) -> None:
        """Show a line."""
        ...

    def waiting(self, label: str) -> AbstractAsyncContextManager[None]:
        """Show that the flow waits (a spinner) while the context is open."""
        ...


class Kind(Protocol):
    """One provider's sign-in: its endpoints, renewal, and what each request carries."""

    name: str
    label: str

    def urls(self, env: Mapping[str, str]) -> dict[str, str]:
        """Its endpoints, each moved by its `*_BASE_URL` variable when set."""
        ...

    async def refresh(self, entry: Entry, urls: dict[str, str], transport: Transport) -> Entry:
        """A renewed entry; raises `Revoked` when the provider refuses."""
        ...

    def prepare(
        self, entry: Entry, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """A request's headers and body with this sign-in's credentials."""
        ...

    async def revoke(self, entry: Entry, urls: dict[str, str], transport: Transport) -> str:
        """Ask the provider to revoke `entry`'s tokens (best effort); what happened, in words."""
        ...


Sleep = Callable[[float], Awaitable[None]]


def expired(entry: Entry, now: float | None = None) -> bool:
    """Whether `entry`'s access token is past (or within `MARGIN` of) its expiry."""
    expires = entry.get("expires")
    if not isinstance(expires, (int, float)):
        return True
    return (time.time() if now is None else now) >= expires - MARGIN


def models_stale(entry: Entry, now: float | None = None) -> bool:
    """Whether `entry`'s list of the account's models is missing or older than `MODELS_TTL`."""
    at = entry.get("models_at")
    return (
        not isinstance(at, (int, float)) or (time.time() if now is None else now) > at + MODELS_TTL
    )


def url_from(env: Mapping[str, str], variable: str, default: str) -> str:
    """`variable`'s URL when set (without a trailing slash), else `default`."""
    return (env.get(variable, "").strip() or default).rstrip("/")
