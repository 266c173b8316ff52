"""A host for tests: it answers from lists given in advance and remembers what it was asked."""

from __future__ import annotations

from collections.abc import Iterable

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
