"""The terminal's side of the host protocol, and the pipe that carries records to the screen.

The Runtime runs on an event loop of its own, in another thread, so that `ask` can block that
thread (an extension calls it synchronously) while the screen goes on taking keys. Everything
the Runtime hands over crosses to the screen's loop here, in order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol

YES_NO = ["Yes", "No"]
"""The options of a `confirm`; the screen answers them with a single `y` or `n`."""


class Notice(NamedTuple):
    """A notice the host was given (its `notify` record follows it on the stream)."""

    message: str
    level: str


class Progress(NamedTuple):
    """Slow work began (`label`) or ended (`None`)."""

    label: str | None


class Pipe:
    """Items from any thread to one consumer on the screen's loop, in order, woken once per
    burst rather than once per item."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sink: Callable[[list[Any]], None]) -> None:
        self._loop = loop
        self._sink = sink
        self._items: deque[Any] = deque()
        self._woken = False

    def put(self, item: Any) -> None:
        """Queue `item` for the sink."""
        self._items.append(item)
        if not self._woken:
            self._woken = True
            with contextlib.suppress(RuntimeError):  # the screen's loop has closed
                self._loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        self._woken = False
        items = self._items
        batch = [items.popleft() for _ in range(len(items))]
        if batch:
            self._sink(batch)


class Surface(Protocol):
    """What the host needs of the screen; called on the screen's loop."""

    def choose(
        self,
        question: str,
        options: list[str] | None,
        secret: bool,
        done: Callable[[str | None], None],
    ) -> None:
        """Ask `question` inline; call `done` with the answer, or `None` when declined."""
        ...


class TerminalHost:
    """A host that asks and confirms inline, and shows notices and progress on the screen."""

    capabilities: frozenset[str] = frozenset({"ask", "confirm", "notify", "progress"})

    def __init__(self, surface: Surface, loop: asyncio.AbstractEventLoop, pipe: Pipe) -> None:
        self._surface = surface
        self._loop = loop
        self._pipe = pipe
        self._screen_thread = threading.get_ident()

    def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The answer typed or picked; `None` when declined or when the screen is gone."""
        if threading.get_ident() == self._screen_thread:
            return None  # waiting here would stop the very loop that takes the answer
        answer: concurrent.futures.Future[str | None] = concurrent.futures.Future()

        def done(value: str | None) -> None:
            if not answer.done():
                answer.set_result(value)

        try:
            self._loop.call_soon_threadsafe(
                self._surface.choose, question, list(options) if options else None, secret, done
            )
        except RuntimeError:
            return None
        return answer.result()

    def confirm(self, question: str) -> bool:
        """Yes or no, asked inline."""
        return self.ask(question, YES_NO) == "Yes"

    def notify(self, message: str, level: str) -> None:
        """Shown in order with the records around it."""
        self._pipe.put(Notice(message, level))

    @contextlib.contextmanager
    def progress(self, label: str) -> Iterator[None]:
        """The spinner shows `label` while the context is open."""
        self._pipe.put(Progress(label))
        try:
            yield
        finally:
            self._pipe.put(Progress(None))
