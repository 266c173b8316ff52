"""Session entries: their JSON form and loading it back."""

from __future__ import annotations

import re

import msgspec
import pytest

from auger.llm.messages import AssistantMessage, ProviderData, ReasoningPart, TextPart, ToolCall
from auger.llm.usage import Usage
from auger.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    LeafEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    Unknown,
    entry_from_dict,
    new_id,
    timestamp,
)

from .conftest import result, user

TREE = {"id": "a1b2c3d4", "parent_id": "00ff00ff", "timestamp": "2025-01-31T09:30:00.125Z"}

ASSISTANT = AssistantMessage(
    (
        ReasoningPart("think"),
        ProviderData("thinking_signature", {"signature": "sig"}, "0f3a", legacy=True),
        TextPart("hi"),
        ToolCall("c1", "read", '{"path": "x"}'),
    ),
    Usage(1200, 30, cache_read_tokens=1000, cost=0.0123),
    "tool_use",
    "anthropic",
    "claude-x",
    "anthropic-messages",
)

EXAMPLES: list[Entry] = [
    MessageEntry(ASSISTANT, **TREE),
    user("a prompt"),
    result(ToolCall("c1", "read", "{}")),
    ModelChangeEntry("openai", "gpt-x", **TREE),
    CompactionEntry("we did things", "0badcafe", 50_000, **TREE),
    BranchSummaryEntry("tried another way", "0badcafe", **TREE),
    BranchSummaryEntry("left from the start", None, **TREE),
    CustomEntry("todo", {"items": [1, "two", None]}, **TREE),
    CustomEntry("flag", **TREE),
    CustomMessageEntry("note", "remember this", display=False, **TREE),
    LabelEntry("0badcafe", "checkpoint", **TREE),
    LabelEntry("0badcafe", None, **TREE),
    SessionInfoEntry("refactor", **TREE),
    LeafEntry(**TREE),
]


@pytest.mark.parametrize("entry", EXAMPLES, ids=lambda entry: entry.type)
def test_round_trip_through_json(entry: Entry) -> None:
    data = msgspec.json.decode(msgspec.json.encode(entry.to_dict()))
    assert entry_from_dict(data) == entry


def test_to_dict_leads_with_the_tree_fields() -> None:
    data = CompactionEntry("s", "f", 3, **TREE).to_dict()
    assert list(data) == [
        "type",
        "id",
        "parent_id",
        "timestamp",
        "summary",
        "first_kept_id",
        "tokens_before",
    ]
    assert data["type"] == "compaction"


def test_assistant_message_keeps_usage_cost_stop_reason_provider_and_model() -> None:
    data = MessageEntry(ASSISTANT, **TREE).to_dict()["message"]
    assert data["usage"] == {
        "input_tokens": 1200,
        "output_tokens": 30,
        "cache_read_tokens": 1000,
        "cost": 0.0123,
    }
    assert (data["stop_reason"], data["provider"], data["model"]) == (
        "tool_use",
        "anthropic",
        "claude-x",
    )


def test_unknown_type_is_kept_as_written() -> None:
    raw = {"type": "bookmark", **TREE, "color": "red", "nested": {"a": [1]}}
    entry = entry_from_dict(raw)
    assert isinstance(entry, Unknown)
    assert (entry.id, entry.parent_id, entry.timestamp) == (
        TREE["id"],
        TREE["parent_id"],
        TREE["timestamp"],
    )
    assert entry.to_dict() == raw


@pytest.mark.parametrize(
    "data",
    [
        {"type": "compaction", **TREE, "summary": "s"},
        {"type": "model_change", **TREE, "provider": 1, "model": "m"},
        {"type": "message", **TREE},
        {"type": "message", **TREE, "message": {"role": "robot", "content": []}},
        {"type": "bookmark", "parent_id": None},
        {"type": "bookmark", "id": "x"},
        {"type": "bookmark", "id": "x", "parent_id": 3},
    ],
)
def test_malformed_entries_raise_value_error(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        entry_from_dict(data)


def test_new_ids_are_eight_hex_characters() -> None:
    ids = {new_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(re.fullmatch(r"[0-9a-f]{8}", entry_id) for entry_id in ids)


def test_timestamp_is_utc_iso_with_milliseconds() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", timestamp())
