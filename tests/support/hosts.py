"""A host for tests: it answers from lists given in advance and remembers what it was asked."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable

from auger.host import Capability, NullHost
from auger.records import Decision, PermissionRequest


class Answering(NullHost):
    """Answers confirmations, questions and permission requests from lists (declining once a
    list runs out), and keeps every question in `asked`."""

    def __init__(
        self,
        *confirms: bool,
        answers: Iterable[str | None] = (),
        decisions: Iterable[Decision] = (),
        capabilities: Iterable[Capability] = ("confirm",),
    ) -> None:
        self.capabilities = frozenset(capabilities)
        self.confirms = list(confirms)
        self.answers = list(answers)
        self.decisions = list(decisions)
        self.asked: list[str] = []
        self.requests: list[PermissionRequest] = []

    async def ask(
        self, question: str, options: list[str] | None = None, secret: bool = False
    ) -> str | None:
        """The next answer."""
        self.asked.append(question)
        return self.answers.pop(0) if self.answers else None

    async def confirm(self, question: str) -> bool:
        """The next confirmation."""
        self.asked.append(question)
        return self.confirms.pop(0) if self.confirms else False

    async def request_permission(self, request: PermissionRequest) -> Decision:
        """The next decision."""
        self.requests.append(request)
        self.asked.append(request.title)
        return self.decisions.pop(0) if self.decisions else "deny"


class Watching(NullHost):
    """A host that can show progress and keeps, in `shown`, each `("start", label)` and
    `("end", label, how)` — `how` is `None`, or the name of the exception that ended it."""

    def __init__(self, capabilities: Iterable[Capability] = ("progress",)) -> None:
        self.capabilities = frozenset(capabilities)
        self.shown: list[tuple[str | None, ...]] = []

    @contextlib.asynccontextmanager
    async def progress(self, label: str) -> AsyncIterator[None]:
        """Keeps when `label` was shown, and how it ended."""
        self.shown.append(("start", label))
        try:
            yield
        except BaseException as exc:
            self.shown.append(("end", label, type(exc).__name__))
            raise
        self.shown.append(("end", label, None))

    def open(self) -> list[str]:
        """The labels still shown."""
        started = [str(s[1]) for s in self.shown if s[0] == "start"]
        for s in self.shown:
            if s[0] == "end":
                started.remove(s[1])
        return started
