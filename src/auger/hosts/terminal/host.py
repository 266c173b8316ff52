"""The terminal's side of the host protocol, the pipe that carries records to the screen, and the
Runtime's own loop in a thread of its own.

The Runtime runs on an event loop of its own, in another thread, so that its work never holds
up the keys. Everything the Runtime hands over crosses to the screen's loop here, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from auger.host import Capability, NullHost
from auger.records import PermissionAnswer, PermissionRequest

YES_NO = ["Yes", "No"]
"""The options of a `confirm`; the screen answers them with a single `y` or `n`."""


class Progress(NamedTuple):
    """Slow work `key` began (`label`) or ended (`None`); several can run at once (two MCP
    servers starting)."""

    label: str | None
    key: int = 0


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
        detail: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Ask `question` inline, with `detail` (styled lines) above the options; call `done`
        with the answer, or `None` when declined."""
        ...


class TerminalHost(NullHost):
    """A host that asks, confirms and requests permission inline on the screen.

    The Runtime runs on a loop of its own; a question is handed to the screen's loop and
    awaited on the Runtime's, so no thread waits while a person decides.
    """

    capabilities: frozenset[Capability] = frozenset(
        {"ask", "confirm", "permission", "progress", "clipboard"}
    )

    def __init__(
        self, surface: Surface, loop: asyncio.AbstractEventLoop, pipe: Pipe, cwd: Path
    ) -> None:
        self._surface = surface
        self._loop = loop
        self._pipe = pipe
        self._cwd = cwd
        self._keys = itertools.count(1)

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The answer typed or picked; `None` when declined or when the screen is gone."""
        return await self._choose(question, options, secret, ())

    async def _choose(
        self,
        question: str,
        options: list[str] | None,
        secret: bool,
        detail: Sequence[tuple[str, str]],
    ) -> str | None:
        here = asyncio.get_running_loop()
        answer: asyncio.Future[str | None] = here.create_future()

        def done(value: str | None) -> None:
            def settle() -> None:
                if not answer.done():
                    answer.set_result(value)

            if here is self._loop:
                settle()
            else:
                with contextlib.suppress(RuntimeError):  # the Runtime's loop has closed
                    here.call_soon_threadsafe(settle)

        choices = list(options) if options else None
        try:
            if here is self._loop:
                self._surface.choose(question, choices, secret, done, detail)
            else:
                self._loop.call_soon_threadsafe(
                    self._surface.choose, question, choices, secret, done, detail
                )
        except RuntimeError:
            return None
        return await answer

    async def confirm(self, question: str) -> bool:
        """Yes or no, asked inline."""
        return await self.ask(question, YES_NO) == "Yes"

    async def request_permission(self, request: PermissionRequest) -> PermissionAnswer:
        """The dialog: what the call would do, then allow once, for the session or always,
        deny, or deny and say what to do instead; declining it denies and stops the turn."""
        from auger.hosts.terminal.approval import TELL_QUESTION, answer, detail, labels

        choices = labels(request)
        picked = await self._choose(request.title, list(choices), False, detail(request, self._cwd))
        if picked is None or picked not in choices:
            return answer(None, None)
        if choices[picked] is not None:
            return answer(choices[picked], None)
        return answer(None, await self._choose(TELL_QUESTION, None, False, ()))

    @contextlib.asynccontextmanager
    async def progress(self, label: str) -> AsyncIterator[None]:
        """The spinner shows `label` while the context is open (the latest one still open,
        when several are)."""
        key = next(self._keys)
        self._pipe.put(Progress(label, key))
        try:
            yield
        finally:
            self._pipe.put(Progress(None, key))


class Worker:
    """The Runtime's event loop, in a thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="auger-runtime", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        """Run `coro` on the Runtime's loop; await the result on the caller's."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        """Stop the loop and its thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=2)
