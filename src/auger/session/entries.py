"""Session entries: the lines of a session file after its header.

Every entry has an `id` (8 hex characters, unique within its file), a `parent_id` (`None` for a
root) and a `timestamp` (UTC, ISO 8601). A fresh entry leaves all three empty; the store fills
them in when it appends it.
"""

from __future__ import annotations

import os
import time
from typing import Any, ClassVar

import msgspec

from auger.llm.arguments import TooDeep, depth, too_deep
from auger.llm.messages import AssistantMessage, Message, message_from_dict
from auger.llm.records import plain
from auger.llm.stored import upgrade

_BASE_FIELDS = ("id", "parent_id", "timestamp")


def new_id() -> str:
    """A short random entry id: 8 hex characters."""
    return os.urandom(4).hex()


def timestamp(now: float | None = None) -> str:
    """The current UTC time (or epoch seconds `now`) in ISO 8601 with milliseconds, e.g.
    `2025-01-31T09:30:00.125Z`."""
    now = time.time() if now is None else now
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every entry: its place in the tree and when it was written."""

    id: str = ""
    parent_id: str | None = None
    timestamp: str = ""
    type: ClassVar[str] = "entry"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: `type`, `id`, `parent_id`, `timestamp`, then the entry's own fields."""
        out: dict[str, Any] = {
            "type": self.type,
            "id": self.id,
            "parent_id": self.parent_id,
            "timestamp": self.timestamp,
        }
        # kw_only base fields come last in `__struct_fields__`, after the entry's own.
        for name in self.__struct_fields__[: -len(_BASE_FIELDS)]:
            out[name] = plain(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        """The inverse of `to_dict()`."""
        return msgspec.convert(data, cls)


class MessageEntry(Entry, frozen=True):
    """A conversation message: user, assistant (with usage, cost, stop reason, model), tool."""

    message: Message
    type: ClassVar[str] = "message"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        """The inverse of `to_dict()`."""
        base = msgspec.convert(data, _Base)
        stored = data.get("message")
        # a session written before provider data had its own part: upgraded as it is read
        message = message_from_dict(upgrade(stored) if isinstance(stored, dict) else stored)
        if isinstance(message, AssistantMessage):  # the limits a live call has, on load too
            for call in message.tool_calls:
                if too_deep(call.arguments):
                    raise ValueError(f"tool call {call.call_id}: arguments {TooDeep()}")
        return cls(
            message,
            id=base.id,
            parent_id=base.parent_id,
            timestamp=base.timestamp,
        )


class ModelChangeEntry(Entry, frozen=True):
    """The user switched to another model."""

    provider: str
    model: str
    type: ClassVar[str] = "model_change"


class CompactionEntry(Entry, frozen=True):
    """Everything on the branch before `first_kept_id` is replaced by `summary`."""

    summary: str
    first_kept_id: str
    tokens_before: int
    type: ClassVar[str] = "compaction"


class BranchSummaryEntry(Entry, frozen=True):
    """A summary of the branch ending at `from_id` that the user navigated away from."""

    summary: str
    from_id: str | None
    type: ClassVar[str] = "branch_summary"


SUBAGENT_KIND = "subagent"
"""The `custom` entry kind that links a child agent's session from its parent's (SPEC §8):
`agent_id`, `name`, `call_id`, `prompt`, `stop_reason`, `text`, `session` (its file)."""


class CustomEntry(Entry, frozen=True):
    """Extension state: saved with the session, never sent to the model."""

    kind: str
    data: Any = None
    type: ClassVar[str] = "custom"


class CustomMessageEntry(Entry, frozen=True):
    """An extension's message: sent to the model as a user message; `display` is for hosts."""

    kind: str
    content: str
    display: bool = True
    type: ClassVar[str] = "custom_message"


class LabelEntry(Entry, frozen=True):
    """Puts `label` on the entry `target_id`; `None` clears it."""

    target_id: str
    label: str | None
    type: ClassVar[str] = "label"


class SessionInfoEntry(Entry, frozen=True):
    """Names the session."""

    name: str
    type: ClassVar[str] = "session_info"


class LeafEntry(Entry, frozen=True):
    """Moves the leaf to `parent_id` without adding anything to the tree (navigation)."""

    type: ClassVar[str] = "leaf"


class Unknown(Entry, frozen=True):
    """An entry of a type this version does not know: kept as written, otherwise ignored."""

    raw: dict[str, Any]
    type: ClassVar[str] = "unknown"

    def to_dict(self) -> dict[str, Any]:
        """The entry as it was read, with the tree fields as they are now."""
        return {
            **self.raw,
            "id": self.id,
            "parent_id": self.parent_id,
            "timestamp": self.timestamp,
        }


ENTRY_TYPES: dict[str, type[Entry]] = {
    cls.type: cls
    for cls in (
        MessageEntry,
        ModelChangeEntry,
        CompactionEntry,
        BranchSummaryEntry,
        CustomEntry,
        CustomMessageEntry,
        LabelEntry,
        SessionInfoEntry,
        LeafEntry,
    )
}


class _Base(msgspec.Struct, frozen=True):
    """The tree fields every stored entry must have, with their types."""

    id: str
    parent_id: str | None
    timestamp: str = ""


MAX_DEPTH = 64
"""The deepest nesting a stored entry may have; deeper data cannot be written back safely."""


def entry_from_dict(data: Any) -> Entry:
    """An entry from its `to_dict()` form; an unknown `type` gives an `Unknown` entry.

    Raises `ValueError` saying what is wrong when the data is not an object, nests deeper than
    `MAX_DEPTH`, lacks a string `id` or a `parent_id`, or has a field of the wrong type.
    """
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if depth(data) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    base = msgspec.convert(data, _Base)
    kind = data.get("type")
    cls = ENTRY_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is not None:
        return cls.from_dict(data)
    return Unknown(data, id=base.id, parent_id=base.parent_id, timestamp=base.timestamp)


class TreeRow(msgspec.Struct, frozen=True):
    """One entry of `SessionFile.tree()`: indented one step more only where the tree branches."""

    entry: Entry
    depth: int
    on_branch: bool
    label: str | None
