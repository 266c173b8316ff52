"""The host protocol: what a front-end lends the Runtime (DESIGN: the host protocol)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol, runtime_checkable


@runtime_checkable
class Host(Protocol):
    """A front-end. The Runtime checks `capabilities` before it asks or confirms."""

    capabilities: frozenset[str]

    def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The user's answer, or `None` when declined."""
        ...

    def confirm(self, question: str) -> bool:
        """Whether the user agreed."""
        ...

    def notify(self, message: str, level: str) -> None:
        """Show a notice (`info`, `warning`, `error`)."""
        ...

    def progress(self, label: str) -> contextlib.AbstractContextManager[None]:
        """Show that slow work is under way while the context is open."""
        ...


class NullHost:
    """A host that can do nothing: every question is declined, notices go nowhere."""

    capabilities: frozenset[str] = frozenset()

    def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """Declined."""
        return None

    def confirm(self, question: str) -> bool:
        """Declined."""
        return False

    def notify(self, message: str, level: str) -> None:
        """Dropped: notices still reach the stream as `notify` records."""

    @contextlib.contextmanager
    def progress(self, label: str) -> Iterator[None]:
        """Nothing to show."""
        yield
