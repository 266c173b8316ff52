"""What every extension event is (`Event`: `apply`, `takes`, `settled`, `guard`), and the
shapes a handler's returned value is checked against before an event takes it."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self, TypeGuard

from auger.llm.messages import AssistantMessage, ToolResultMessage, UserMessage
from auger.llm.records import Record

Observed = Literal[False] | None
"""What a handler of an event that takes no value may return: nothing, or `False` (which ends
the chain, and cancels where the event says so)."""


class Event(Record, frozen=True):
    """Base of the extension events; observe-only unless `apply` says otherwise.

    A `guard` event is one whose handler failing blocks what it guards (SPEC §2.1).
    """

    guard: ClassVar[bool] = False
    takes: ClassVar[str] = "no value (it only observes)"
    """What a handler may return, as a warning about a wrong value says it."""

    def apply(self, value: object) -> Self | None:
        """The event as changed by `value`, or `None` if `value` is not accepted."""
        return None

    @property
    def settled(self) -> bool:
        """Whether the chain ends here."""
        return False


MESSAGES = (UserMessage, AssistantMessage, ToolResultMessage)


def strings(value: object) -> TypeGuard[dict[str, str]]:
    """Whether `value` is a dict of strings to strings (headers)."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def fields(value: object, names: tuple[str, str], optional: bool) -> TypeGuard[dict[str, Any]]:
    """Whether `value` is a dict naming one of `names` with each named one a string (or, when
    `optional`, `None`)."""
    if not isinstance(value, dict) or not (set(names) & value.keys()):
        return False
    return all(
        isinstance(value[n], str) or (optional and value[n] is None) for n in names if n in value
    )
