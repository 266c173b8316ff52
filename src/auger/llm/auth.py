"""How a request is authorised when a fixed API key is not enough (sign-in tokens that expire).

A wire format never knows which kind of credential it carries: the provider asks the endpoint's
`Authorizer` for the headers of each request, and tells it when the server refused them.
"""

from __future__ import annotations

from typing import Any, Protocol


class Authorizer(Protocol):
    """Credentials that may change between requests (refreshed before they expire)."""

    async def prepare(
        self, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The request's headers with fresh credentials (and the body as the signed-in endpoint
        takes it); raises `ProviderError("auth", …)` when they cannot be had without signing in
        again."""
        ...

    async def rejected(self) -> bool:
        """The server refused the credentials last sent: renew them; whether a retry can help."""
        ...
