"""The async host protocol: what a front-end lends the Runtime (DESIGN: the host protocol)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Literal, Protocol, runtime_checkable

from auger.records import Decision, PermissionAnswer, PermissionRequest

Capability = Literal["ask", "confirm", "permission", "progress", "clipboard"]
"""What a host can do; `clipboard`: it puts a `clipboard_copy` record's text on the clipboard of
the terminal the user sits at."""


@runtime_checkable
class Host(Protocol):
    """A front-end. The Runtime checks `capabilities` before it asks; every question is
    awaited, so no host blocks the Runtime's event loop while a person decides."""

    capabilities: frozenset[Capability]

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The user's answer, or `None` when declined."""
        ...

    async def confirm(self, question: str) -> bool:
        """Whether the user agreed."""
        ...

    async def request_permission(self, request: PermissionRequest) -> Decision | PermissionAnswer:
        """The user's decision about one tool call: one of `request.options`, or a
        `PermissionAnswer` that also says what the model is told instead, or to stop the turn."""
        ...

    def progress(self, label: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Show that slow work is under way while the context is open."""
        ...


class NullHost:
    """A host that can do nothing: every question is declined."""

    capabilities: frozenset[Capability] = frozenset()

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """Declined."""
        return None

    async def confirm(self, question: str) -> bool:
        """Declined."""
        return False

    async def request_permission(self, request: PermissionRequest) -> Decision | PermissionAnswer:
        """Denied: nobody can be asked."""
        return "deny"

    @contextlib.asynccontextmanager
    async def progress(self, label: str) -> AsyncIterator[None]:
        """Nothing to show."""
        yield
