"""The `Authorizer` of a kept sign-in: the token read from auth.json, renewed before it expires
(or when the server refuses it), and written back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from auger.config.credentials import load_signin, save_signin
from auger.config.signin.kind import Entry, Kind, Revoked, expired
from auger.config.signin.web import SignInError, Unreachable
from auger.llm.errors import ErrorKind, ProviderError
from auger.llm.transport import Transport


class SignedIn:
    """Credentials of provider `kind.name`'s sign-in in `home/auth.json`."""

    def __init__(self, kind: Kind, home: Path, urls: dict[str, str], transport: Transport) -> None:
        self.kind = kind
        self.home = home
        self.urls = urls
        self.transport = transport
        self._entry: Entry | None = None
        self._lock = asyncio.Lock()

    async def prepare(
        self, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """The request with this sign-in's current credentials."""
        return self.kind.prepare(await self._fresh(renew=False), headers, body)

    async def rejected(self) -> bool:
        """Renew the token the server refused (it expired early or was rotated)."""
        await self._fresh(renew=True)
        return True

    async def _fresh(self, *, renew: bool) -> Entry:
        async with self._lock:
            entry = self._entry or self._kept()
            if renew or expired(entry):
                kept = self._kept()  # another session may have renewed it (and rotated it)
                if kept.get("access") != entry.get("access") and not expired(kept):
                    entry = kept
                else:
                    entry = await self._renewed(kept)
            self._entry = entry
            return entry

    def _kept(self) -> Entry:
        entry = load_signin(self.home, self.kind.name)
        if entry is None or "access" not in entry:
            raise ProviderError("auth", f"{self._name}: not signed in — {self._again}")
        return entry

    async def _renewed(self, entry: Entry) -> Entry:
        try:
            renewed = await self.kind.refresh(entry, self.urls, self.transport)
        except Revoked as exc:
            kept = load_signin(self.home, self.kind.name)
            if kept and kept.get("refresh") != entry.get("refresh") and not expired(kept):
                return kept  # renewed at the same moment by another session, which won
            raise ProviderError(
                "auth",
                f"{self._name}: the sign-in has expired or was revoked ({exc}) — " + self._again,
            ) from None
        except SignInError as exc:  # the network, or a server error: worth another try
            kind: ErrorKind = "network" if isinstance(exc, Unreachable) else "server"
            raise ProviderError(kind, f"{self._name}: cannot renew the sign-in: {exc}") from None
        save_signin(self.home, self.kind.name, renewed)
        return renewed

    @property
    def _name(self) -> str:
        return self.kind.name

    @property
    def _again(self) -> str:
        return f"sign in again: auger login {self.kind.name}"
