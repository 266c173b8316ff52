"""Property test: hostile lines mixed into a session file never raise and never lose an entry
that was written correctly."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auger.session.context import build_context, last_model, totals
from auger.session.entries import (
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
)
from auger.session.store import SessionFile, SessionHeader
from auger.session.tree import render

from .conftest import assistant, call, result, user

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
FIELDS = [
    "message",
    "role",
    "content",
    "usage",
    "summary",
    "first_kept_id",
    "tokens_before",
    "provider",
    "model",
    "kind",
    "data",
    "target_id",
    "label",
    "name",
    "from_id",
]
TYPES = st.sampled_from(
    [
        "message",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "leaf",
        "model_change",
        "bookmark",
    ]
)
# Garbage never reuses a written id (8 hex digits): a `g` is no hex digit.
GARBAGE_ID = st.text("gxyz0123", min_size=1, max_size=8).map(lambda s: "g" + s)
ANY_ID = GARBAGE_ID | JSON


@st.composite
def entry_like(draw: st.DrawFn, parents: list[str]) -> dict[str, Any]:
    """A dict that looks like an entry, with random fields of random types."""
    out: dict[str, Any] = {"type": draw(TYPES | JSON)}
    if draw(st.booleans()):
        out["id"] = draw(GARBAGE_ID)
    elif draw(st.booleans()):
        out["id"] = draw(JSON)
    if draw(st.booleans()):
        out["parent_id"] = draw(st.sampled_from(parents) if parents else st.none())
    elif draw(st.booleans()):
        out["parent_id"] = draw(ANY_ID)
    out["timestamp"] = draw(st.text(max_size=4) | JSON)
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4)):
        out[field] = draw(JSON)
    return out


@st.composite
def mutated(draw: st.DrawFn, written: list[dict[str, Any]]) -> Any:
    """A written entry with its id changed and one field, at any depth, replaced."""
    data = json.loads(json.dumps(draw(st.sampled_from(written))))
    data["id"] = draw(GARBAGE_ID)
    node = data
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        if not isinstance(node[key], dict | list) or draw(st.booleans()):
            node[key] = draw(JSON)
            break
        node = node[key]
    return data


def lines_for(draw: st.DrawFn, written: list[dict[str, Any]]) -> bytes:
    kind = draw(st.sampled_from(["json", "entry", "mutated", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=40)).replace(b"\n", b"")
    ids = [entry["id"] for entry in written]
    value = {
        "json": JSON,
        "entry": entry_like(ids),
        "mutated": mutated(written) if written else JSON,
    }[kind]
    return json.dumps(draw(value)).encode()


def valid_entries(draw: st.DrawFn) -> list[Entry]:
    out: list[Entry] = []
    for kind in draw(st.lists(st.sampled_from(range(8)), min_size=1, max_size=8)):
        c = call(f"c{len(out)}")
        out += {
            0: [user("hi")],
            1: [assistant(c), result(c)],
            2: [CompactionEntry("sum", "nowhere", 10)],
            3: [CustomEntry("state", {"n": [1, {"x": None}]})],
            4: [CustomMessageEntry("note", "hello")],
            5: [LabelEntry("nowhere", "l")],
            6: [SessionInfoEntry("name")],
            7: [ModelChangeEntry("p", "m")],
        }[kind]
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hostile_lines_never_raise_and_never_lose_a_valid_entry(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        with SessionFile.create(path, SessionHeader(id="s", cwd="/p")) as session:
            session.append(user("first"))
            for entry in valid_entries(data.draw):
                session.append(entry)
            written = list(session.entries)
        lines = path.read_bytes().splitlines()
        dicts = [json.loads(line) for line in lines[1:]]
        for _ in range(data.draw(st.integers(1, 6))):
            at = data.draw(st.integers(1, len(lines)))
            lines.insert(at, lines_for(data.draw, dicts))
        path.write_bytes(b"\n".join(lines) + b"\n")

        with SessionFile.open(path) as reopened:
            ours = [entry for entry in reopened.entries if entry.id in {e.id for e in written}]
            assert ours == written
            branch = reopened.branch()
            build_context(branch)
            totals(branch)
            last_model(branch)
            render(reopened)
            for warning in reopened.warnings:
                assert warning.startswith(f"{path}:")
            added = reopened.append(user("still works"))
        with SessionFile.open(path) as again:
            assert again.get(added.id) == added
