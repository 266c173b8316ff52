"""Stream records: the one serializer, and the provider records of SPEC §1.1."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from auger.llm.messages import ProviderData
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


class Record(msgspec.Struct, frozen=True):
    """Base of every stream record: a `type` and a `to_dict()` that prints as JSON as-is.

    Fields named in `_omit_none` are left out of `to_dict()` while they are `None`.
    """

    type: ClassVar[str] = "record"
    _omit_none: ClassVar[frozenset[str]] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        """The record's fields with `type` included."""
        out: dict[str, Any] = {"type": self.type}
        omit = self._omit_none
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value is None and name in omit:
                continue
            out[name] = plain(value)
        return out


class TextDelta(Record, frozen=True):
    """A new piece of assistant text."""

    type: ClassVar[str] = "text_delta"
    content: str


class TextDone(Record, frozen=True):
    """The whole text of one finished text block."""

    type: ClassVar[str] = "text_done"
    content: str


class ReasoningDelta(Record, frozen=True):
    """A new piece of reasoning (thinking or a reasoning summary)."""

    type: ClassVar[str] = "reasoning_delta"
    content: str


class ReasoningDone(Record, frozen=True):
    """One finished reasoning block (what signs it, if anything, is a `ProviderDataDone`)."""

    type: ClassVar[str] = "reasoning_done"
    content: str


class ProviderDataDone(Record, frozen=True):
    """Opaque data the provider sent with the response (a signature, an encrypted reasoning
    item, a `phase`), kept in the message as `part` and sent back by its format; the
    engine's, never streamed to a host."""

    type: ClassVar[str] = "provider_data_done"
    part: ProviderData


class ToolCallDelta(Record, frozen=True):
    """A new piece of a tool call's JSON arguments; `name` only on the first delta."""

    type: ClassVar[str] = "tool_call_delta"
    call_id: str
    name: str | None
    arguments_delta: str


class ToolCallDone(Record, frozen=True):
    """A finished tool call; `arguments` is the raw JSON string the model sent."""

    type: ClassVar[str] = "tool_call_done"
    call_id: str
    name: str
    arguments: str


class TokenUsageDone(Record, frozen=True):
    """The usage of one model response."""

    type: ClassVar[str] = "token_usage_done"
    usage: Usage


FINISH_REASONS = frozenset(
    {"stop", "tool_calls", "length", "content_filter", "context_window", "error", "other"}
)


class FinishReasonDone(Record, frozen=True):
    """Why the model response ended: a normalized `finish_reason` and the provider's `raw`."""

    type: ClassVar[str] = "finish_reason_done"
    finish_reason: str
    raw: str | None = None


class ProviderNotice(Record, frozen=True):
    """Not part of a response: what a provider tells the user while it works (a local model
    loading). The engine turns it into a `notify` record; it is never sent to a model."""

    type: ClassVar[str] = "provider_notice"
    message: str
    level: str = "info"


PROVIDER_RECORDS: tuple[type[Record], ...] = (
    TextDelta,
    TextDone,
    ReasoningDelta,
    ReasoningDone,
    ToolCallDelta,
    ToolCallDone,
    TokenUsageDone,
    FinishReasonDone,
)
