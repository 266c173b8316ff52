"""Stream records: the one serializer, and the provider records of SPEC §1.1."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from auger.llm.usage import Usage


def plain(value: Any) -> Any:
    """Turn a record field into JSON-ready data (values with `to_dict()` become dicts)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return str(value)


class Record:
    """Base of every stream record: a `type` and a `to_dict()` that prints as JSON as-is.

    Fields named in `_omit_none` are left out of `to_dict()` while they are `None`.
    """

    __slots__ = ()
    type: ClassVar[str] = "record"
    _omit_none: ClassVar[frozenset[str]] = frozenset()
    _names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._names = ()  # filled lazily: dataclass fields exist only after decoration

    def to_dict(self) -> dict[str, Any]:
        """The record's fields with `type` included."""
        names = type(self)._names or _field_names(type(self))
        out: dict[str, Any] = {"type": self.type}
        omit = self._omit_none
        for name in names:
            value = getattr(self, name)
            if value is None and name in omit:
                continue
            out[name] = plain(value)
        return out


def _field_names(cls: type[Record]) -> tuple[str, ...]:
    cls._names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    return cls._names


@dataclass(frozen=True, slots=True)
class TextDelta(Record):
    """A new piece of assistant text."""

    type: ClassVar[str] = "text_delta"
    content: str


@dataclass(frozen=True, slots=True)
class TextDone(Record):
    """The whole text of one finished text block."""

    type: ClassVar[str] = "text_done"
    content: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta(Record):
    """A new piece of reasoning (thinking or a reasoning summary)."""

    type: ClassVar[str] = "reasoning_delta"
    content: str


@dataclass(frozen=True, slots=True)
class ReasoningDone(Record):
    """One finished reasoning block; `signature` is the provider's opaque proof, if any."""

    type: ClassVar[str] = "reasoning_done"
    _omit_none: ClassVar[frozenset[str]] = frozenset({"signature"})
    content: str
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallDelta(Record):
    """A new piece of a tool call's JSON arguments; `name` only on the first delta."""

    type: ClassVar[str] = "tool_call_delta"
    call_id: str
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class ToolCallDone(Record):
    """A finished tool call; `arguments` is the raw JSON string the model sent."""

    type: ClassVar[str] = "tool_call_done"
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class TokenUsageDone(Record):
    """The usage of one model response."""

    type: ClassVar[str] = "token_usage_done"
    usage: Usage


FINISH_REASONS = frozenset(
    {"stop", "tool_calls", "length", "content_filter", "context_window", "error", "other"}
)


@dataclass(frozen=True, slots=True)
class FinishReasonDone(Record):
    """Why the model response ended: a normalized `finish_reason` and the provider's `raw`."""

    type: ClassVar[str] = "finish_reason_done"
    finish_reason: str
    raw: str | None = None


PROVIDER_RECORDS = (
    TextDelta,
    TextDone,
    ReasoningDelta,
    ReasoningDone,
    ToolCallDelta,
    ToolCallDone,
    TokenUsageDone,
    FinishReasonDone,
)
