"""The session file: lazy creation, appending, the leaf, navigation, forks, robustness."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auger._version import __version__
from auger.session.context import build_context
from auger.session.entries import (
    BranchSummaryEntry,
    CustomEntry,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    Unknown,
)
from auger.session.header import SCHEMA_VERSION, SessionHeader
from auger.session.store import SessionError, SessionFile

from .conftest import NewSession, assistant, call, result, user


def lines(path: Path) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in path.read_bytes().splitlines()]


def test_empty_start_leaves_no_file(new_session: NewSession) -> None:
    session = new_session()
    session.append(ModelChangeEntry("prov", "m1"))
    session.append(CustomEntry("state", {"x": 1}))
    session.set_leaf(None)
    assert not session.path.exists()
    assert not session.exists


def test_first_message_writes_the_header_and_everything_held(new_session: NewSession) -> None:
    session = new_session()
    change = session.append(ModelChangeEntry("prov", "m1"))
    prompt = session.append(user("  Fix the\n  parser   please "))
    assert session.exists
    header, *entries = lines(session.path)
    assert header == {
        "type": "session",
        "id": "s1",
        "cwd": "/project",
        "created": session.header.created,
        "title": "Fix the parser please",
        "version": SCHEMA_VERSION,
        "auger_version": __version__,
    }
    assert entries == [change.to_dict(), prompt.to_dict()]


def test_long_title_is_cut(new_session: NewSession) -> None:
    session = new_session()
    session.append(user("word " * 100))
    assert len(session.header.title) == 100
    assert session.header.title.endswith("…")


def test_append_fills_the_tree_fields_and_moves_the_leaf(new_session: NewSession) -> None:
    session = new_session()
    first = session.append(user())
    second = session.append(assistant())
    assert first.parent_id is None
    assert second.parent_id == first.id
    assert len(second.id) == 8
    assert second.timestamp
    assert session.leaf_id == second.id
    assert session.branch() == [first, second]
    assert session.get(first.id) == first


def test_append_under_a_given_parent(new_session: NewSession) -> None:
    session = new_session()
    first = session.append(user("a"))
    session.append(assistant())
    other = session.append(user("b"), parent_id=first.id)
    root = session.append(user("c"), parent_id=None)
    assert other.parent_id == first.id
    assert root.parent_id is None
    with pytest.raises(SessionError, match="no entry 'nope'"):
        session.append(user(), parent_id="nope")


def test_reopen_gives_the_same_entries_and_leaf(new_session: NewSession) -> None:
    session = new_session()
    c1 = call("c1")
    for entry in [user(), assistant(c1), result(c1), assistant(text="done")]:
        session.append(entry)
    with SessionFile.open(session.path) as reopened:
        assert reopened.header == session.header
        assert reopened.entries == session.entries
        assert reopened.leaf_id == session.leaf_id
        assert reopened.warnings == []


def test_navigation_is_persisted_without_joining_the_tree(new_session: NewSession) -> None:
    session = new_session()
    first = session.append(user("a"))
    session.append(assistant())
    assert session.set_leaf(first.id) is None
    assert session.leaf_id == first.id
    assert len(lines(session.path)) == 4  # header, two entries, one `leaf` line
    with SessionFile.open(session.path) as reopened:
        assert reopened.leaf_id == first.id
        assert len(reopened.entries) == 2
        assert [row.entry for row in reopened.tree()] == session.entries
    session.set_leaf(first.id)  # already there: nothing written
    assert len(lines(session.path)) == 4


def test_navigation_to_before_the_first_entry(new_session: NewSession) -> None:
    session = new_session()
    session.append(user("a"))
    session.set_leaf(None)
    assert session.branch() == []
    root = session.append(user("b"))
    assert root.parent_id is None
    assert len(session.children(None)) == 2


def test_navigation_with_a_branch_summary(new_session: NewSession) -> None:
    session = new_session()
    first = session.append(user("a"))
    left = session.append(assistant())
    summary = session.set_leaf(first.id, summary="tried the long way")
    assert isinstance(summary, BranchSummaryEntry)
    assert (summary.parent_id, summary.from_id) == (first.id, left.id)
    assert session.leaf_id == summary.id
    with SessionFile.open(session.path) as reopened:
        assert reopened.branch() == [first, summary]


def test_navigation_to_an_unknown_entry_is_refused(new_session: NewSession) -> None:
    session = new_session()
    session.append(user())
    with pytest.raises(SessionError):
        session.set_leaf("nope")
    with pytest.raises(SessionError):
        session.branch("nope")


def test_children_and_tree(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user("a"))
    b = session.append(assistant())
    c = session.append(user("c"))
    session.set_leaf(a.id)
    d = session.append(assistant(text="d"))
    e = session.append(user("e"))
    session.append(LabelEntry(b.id, "first try"))
    label = session.entries[-1]
    assert session.children(a.id) == [b, d]
    assert session.children(None) == [a]
    assert session.children(c.id) == []
    rows = [(row.entry.id, row.depth, row.on_branch, row.label) for row in session.tree()]
    assert rows == [
        (a.id, 0, True, None),
        (b.id, 1, False, "first try"),
        (c.id, 1, False, None),
        (d.id, 1, True, None),
        (e.id, 1, True, None),
        (label.id, 1, True, None),
    ]


def test_labels_and_name(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user())
    session.append(LabelEntry(a.id, "start"))
    session.append(SessionInfoEntry("first name"))
    session.append(SessionInfoEntry("better name"))
    assert session.labels == {a.id: "start"}
    assert session.name == "better name"
    session.append(LabelEntry(a.id, None))
    with SessionFile.open(session.path) as reopened:
        assert reopened.labels == {}
        assert reopened.name == "better name"


def test_fork_copies_the_path_and_records_its_parent(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user("a"))
    b = session.append(assistant(text="b"))
    session.append(user("c"))
    forked = session.fork(b.id, session.path.with_name("f1.jsonl"))
    assert forked.exists
    assert forked.entries == [a, b]
    assert forked.leaf_id == b.id
    header = forked.header
    assert (header.id, header.cwd, header.title) == ("f1", "/project", "a")
    assert (header.parent_session, header.parent_session_id) == (str(session.path), "s1")
    assert header.forked_from == b.id
    appended = forked.append(user("d"))
    assert appended.parent_id == b.id
    forked.close()
    with SessionFile.open(forked.path) as reopened:
        assert reopened.header == header
        assert reopened.branch() == [a, b, appended]
    assert len(session.entries) == 3  # the source is untouched


def test_fork_without_a_message_is_written_with_its_first_message(new_session: NewSession) -> None:
    session = new_session()
    change = session.append(ModelChangeEntry("p", "m"))
    session.append(user())
    empty = session.fork(None, session.path.with_name("f1.jsonl"))
    before = session.fork(change.id, session.path.with_name("f2.jsonl"))
    assert not empty.path.exists()
    assert not before.path.exists()
    prompt = before.append(user("later"))
    assert before.header.title == "later"
    with SessionFile.open(before.path) as reopened:
        assert reopened.branch() == [change, prompt]
    before.close()


def test_create_over_an_existing_file_is_refused(new_session: NewSession) -> None:
    new_session().append(user())
    again = new_session()
    with pytest.raises(SessionError, match="already exists"):
        again.append(user())


def test_torn_last_line_is_skipped_with_a_warning(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user())
    b = session.append(assistant())
    session.close()
    with session.path.open("ab") as f:
        f.write(b'{"type":"message","id":"12345678","parent_id":"')
    with SessionFile.open(session.path) as reopened:
        assert reopened.entries == [a, b]
        assert reopened.leaf_id == b.id
        assert len(reopened.warnings) == 1
        assert "torn last line" in reopened.warnings[0]
        assert ":4:" in reopened.warnings[0]
        c = reopened.append(user("after the crash"))
    with SessionFile.open(session.path) as again:
        assert again.entries == [a, b, c]
        assert len(again.warnings) == 1
        assert "unreadable line" in again.warnings[0]


def test_unknown_entry_is_kept_and_ignored(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user())
    session.close()
    raw = {"type": "bookmark", "id": "0000beef", "parent_id": a.id, "timestamp": "t", "x": [1]}
    with session.path.open("ab") as f:
        f.write(msgspec.json.encode(raw) + b"\n")
    with SessionFile.open(session.path) as reopened:
        unknown = reopened.entries[-1]
        assert isinstance(unknown, Unknown)
        assert unknown.raw == raw
        assert reopened.warnings == []
        assert build_context(reopened.branch()) == [a.message]
        b = reopened.append(assistant())
        assert b.parent_id == "0000beef"
        forked = reopened.fork(b.id, session.path.with_name("f1.jsonl"))
        forked.close()
    assert lines(forked.path)[2] == raw


def test_duplicate_ids_on_load_are_skipped(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user())
    session.close()
    with session.path.open("ab") as f:
        f.write(msgspec.json.encode({**a.to_dict(), "parent_id": a.id}) + b"\n")
    with SessionFile.open(session.path) as reopened:
        assert reopened.entries == [a]
        assert "duplicate id" in reopened.warnings[0]


def test_newer_schema_is_refused_and_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    header = {"type": "session", "version": SCHEMA_VERSION + 1, "id": "new", "cwd": "/", "x": 1}
    data = msgspec.json.encode(header) + b'\n{"type":"hologram","id":"1"}\n'
    path.write_bytes(data)
    with pytest.raises(SessionError) as error:
        SessionFile.open(path)
    message = str(error.value)
    assert "\n" not in message
    assert str(path) in message
    assert f"version {SCHEMA_VERSION + 1}" in message
    assert f"this auger's {SCHEMA_VERSION}" in message
    assert path.read_bytes() == data


@pytest.mark.parametrize(
    "data", [b"", b"not json\n", b'{"type":"message"}\n', b'{"type":"session","id":1}\n']
)
def test_a_file_that_is_not_a_session_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    with pytest.raises(SessionError, match=re.escape(str(path))):
        SessionFile.open(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no session file"):
        SessionFile.open(tmp_path / "missing.jsonl")


WRITER = """
import sys
from auger.session.entries import CustomEntry
from auger.session.store import SessionFile

session = SessionFile.open(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
for i in range(500):
    session.append(CustomEntry(sys.argv[2], {"i": i, "pad": sys.argv[2] * 9000}))
"""


def test_two_processes_appending_never_interleave(new_session: NewSession) -> None:
    session = new_session()
    session.append(user())
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(session.path), name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for writer in writers:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.close()
    assert [writer.wait(timeout=30) for writer in writers] == [0, 0]
    entries = lines(session.path)[2:]
    assert len(entries) == 1000
    for name in ("a", "b"):
        mine = [entry["data"] for entry in entries if entry["kind"] == name]
        assert [data["i"] for data in mine] == list(range(500))
        assert all(data["pad"] == name * 9000 for data in mine)
    with SessionFile.open(session.path) as reopened:
        assert reopened.warnings == []
        assert len(reopened.entries) == 1001


def test_header_to_dict_leaves_out_unset_fork_fields() -> None:
    header = SessionHeader(id="x", cwd="/", created="t")
    assert "parent_session" not in header.to_dict()
    forked = SessionHeader(id="x", cwd="/", created="t", forked_from="e1")
    assert forked.to_dict()["forked_from"] == "e1"


def test_an_unreadable_middle_line_leaves_its_children_as_roots(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user("a"))
    b = session.append(assistant())
    c = session.append(user("c"))
    session.close()
    data = session.path.read_bytes().splitlines(keepends=True)
    data[2] = b'{"type":"message", broken\n'
    session.path.write_bytes(b"".join(data))
    with SessionFile.open(session.path) as reopened:
        assert "unreadable line" in reopened.warnings[0]
        assert reopened.entries == [a, c]
        assert reopened.children(None) == [a, c]
        assert reopened.branch() == [c]
        assert [row.entry for row in reopened.tree()] == [a, c]
    assert c.parent_id == b.id  # kept as written


def test_the_children_of_a_skipped_entry_hang_from_its_parent(new_session: NewSession) -> None:
    session = new_session()
    a = session.append(user())
    b = session.append(assistant(call("c1")))
    c = session.append(result(call("c1")))
    d = session.append(assistant(text="after"))
    session.close()
    lines = session.path.read_bytes().split(b"\n")
    broken = msgspec.json.decode(lines[2])
    broken["message"]["content"][1]["arguments"] = '{"a": ' + "[" * 500 + "]" * 500 + "}"
    lines[2] = msgspec.json.encode(broken)
    session.path.write_bytes(b"\n".join(lines))
    with SessionFile.open(session.path) as reopened:
        assert reopened.warnings == [
            f"{session.path}:3: skipped an invalid entry "
            "(tool call c1: arguments nested deeper than 100 levels)"
        ]
        assert [e.id for e in reopened.branch()] == [a.id, c.id, d.id]
        assert b.id not in {e.id for e in reopened.entries}


@pytest.mark.parametrize("levels", [65, 50_000])
def test_an_entry_a_load_would_skip_is_never_written(new_session: NewSession, levels: int) -> None:
    session = new_session()
    session.append(user())
    deep: list[Any] = []
    for _ in range(levels - 2):  # the entry's own object and its `data` list add two
        deep = [deep]
    with pytest.raises(ValueError, match="a custom entry nested deeper than 64 levels"):
        session.append(CustomEntry("deep", deep))
    after = session.append(user("still saved"))
    session.close()
    with SessionFile.open(session.path) as reopened:
        assert reopened.warnings == []
        assert reopened.leaf_id == after.id
