"""What the Runtime's loop hands the screen's loop through the terminal's pipe."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from auger.runtime import Runtime


class Say(NamedTuple):
    """A line of the screen's own; `level` `None` is a quiet note."""

    text: str
    level: str | None = None


class Ready(NamedTuple):
    """The Runtime is built."""

    runtime: Runtime


class Failed(NamedTuple):
    """The Runtime could not be built: why."""

    message: str


END = object()
"""A stream, or other work on the Runtime's loop, is over."""
