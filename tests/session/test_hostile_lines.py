"""Session files are data: wrong-typed, cyclic or deeply nested lines are skipped with a warning
naming the line, and never make a session unusable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auger.session.context import build_context, last_model, totals
from auger.session.paths import list_sessions, sessions_dir
from auger.session.store import SessionError, SessionFile

from .conftest import NewSession, assistant, user

TREE = '"id": "{id}", "parent_id": null, "timestamp": "t"'
DEEP = "[" * 50_000 + "]" * 50_000

# Each line has a known type and one field of the wrong type (or worse).
CRAFTED = [
    '{"type": "message", "id": 7, "parent_id": null, "timestamp": "t", "message": {}}',
    '{"type": "message", "id": "b1", "parent_id": 5, "timestamp": "t", "message": {}}',
    '{"type": "message", "id": "b2", "parent_id": null, "timestamp": 3, '
    '"message": {"role": "user", "content": []}}',
    '{"type": "message", ' + TREE.format(id="b3") + ', "message": "hello"}',
    '{"type": "message", ' + TREE.format(id="b4") + ', "message": {"role": "user", '
    '"content": "hi"}}',
    '{"type": "message", ' + TREE.format(id="b5") + ', "message": {"role": "user", '
    '"content": [{"type": "text", "text": 5}]}}',
    '{"type": "message", ' + TREE.format(id="b6") + ', "message": {"role": "user", '
    '"content": [7]}}',
    '{"type": "message", ' + TREE.format(id="b7") + ', "message": {"role": "assistant", '
    '"content": [], "usage": {"input_tokens": "many"}}}',
    '{"type": "message", ' + TREE.format(id="b8") + ', "message": {"role": "assistant", '
    '"content": [], "usage": {"input_tokens": -5}}}',
    '{"type": "message", ' + TREE.format(id="b9") + ', "message": {"role": "assistant", '
    '"content": [], "usage": [1, 2]}}',
    '{"type": "message", ' + TREE.format(id="ba") + ', "message": {"role": "assistant", '
    '"content": [{"type": "tool_call", "call_id": "c", "name": "x", "arguments": {"a": 1}}]}}',
    '{"type": "message", ' + TREE.format(id="bb") + ', "message": {"role": "assistant", '
    '"content": [], "usage": {"cost": "free"}}}',
    '{"type": "message", ' + TREE.format(id="bc") + ', "message": {"role": "assistant", '
    '"content": [], "model": ["m"]}}',
    '{"type": "message", ' + TREE.format(id="bd") + ', "message": {"role": "tool", '
    '"call_id": null, "name": "x", "content": []}}',
    '{"type": "compaction", ' + TREE.format(id="be") + ', "summary": 1, "first_kept_id": "x", '
    '"tokens_before": "lots"}',
    '{"type": "model_change", ' + TREE.format(id="bf") + ', "provider": {}, "model": "m"}',
    '{"type": "label", ' + TREE.format(id="c0") + ', "target_id": 1, "label": "x"}',
    '{"type": "session_info", ' + TREE.format(id="c1") + ', "name": 42}',
    '{"type": "custom_message", ' + TREE.format(id="c2") + ', "kind": "k", "content": [1]}',
    '{"type": "custom", ' + TREE.format(id="c3") + ', "kind": "k", "data": ' + DEEP + "}",
    '{"type": "custom", '
    + TREE.format(id="c4")
    + ', "kind": "k", "data": '
    + "[" * 70
    + "]" * 70
    + "}",
    '["not", "an", "object"]',
    '"a string"',
    "12",
    "null",
]


def _with_lines(session: SessionFile, lines: list[str], at: int = 2) -> list[bytes]:
    data = session.path.read_bytes().splitlines(keepends=True)
    data[at:at] = [line.encode() + b"\n" for line in lines]
    session.path.write_bytes(b"".join(data))
    return data


def test_every_wrong_typed_line_is_skipped_with_a_warning_naming_it(
    new_session: NewSession,
) -> None:
    session = new_session()
    first = session.append(user("a"))
    second = session.append(assistant())
    session.close()
    _with_lines(session, CRAFTED)
    with SessionFile.open(session.path) as reopened:
        assert reopened.entries == [first, second]
        assert len(reopened.warnings) == len(CRAFTED)
        for number, warning in enumerate(reopened.warnings, start=3):
            assert warning.startswith(f"{session.path}:{number}: skipped ")
        branch = reopened.branch()
        assert [m.to_dict() for m in build_context(branch)] == [
            first.message.to_dict(),
            second.message.to_dict(),
        ]
        assert totals(branch).messages == 2
        assert last_model(branch) == ("prov", "m1")
        reopened.append(user("and it keeps working"))
    with SessionFile.open(session.path) as again:
        assert len(again.entries) == 3


@pytest.mark.parametrize("line", CRAFTED, ids=[f"line{i}" for i in range(len(CRAFTED))])
def test_one_crafted_line_never_makes_a_session_unusable(
    new_session: NewSession, line: str
) -> None:
    session = new_session()
    kept = [session.append(user("a")), session.append(assistant())]
    session.close()
    _with_lines(session, [line])
    with SessionFile.open(session.path) as reopened:
        assert reopened.entries == kept
        assert reopened.warnings[0].startswith(f"{session.path}:3: skipped ")
        build_context(reopened.branch())


def test_a_self_parent_is_a_root_and_loading_ends(new_session: NewSession) -> None:
    session = new_session()
    session.append(user("a"))
    session.close()
    line = json.dumps(
        {
            "type": "message",
            "id": "selfself",
            "parent_id": "selfself",
            "timestamp": "t",
            "message": {"role": "user", "content": [{"type": "text", "text": "me"}]},
        }
    )
    _with_lines(session, [line], at=3)
    with SessionFile.open(session.path) as reopened:
        assert [entry.id for entry in reopened.branch()] == ["selfself"]
        assert [row.entry.id for row in reopened.tree()][-1] == "selfself"


def test_a_parent_cycle_is_cut_where_the_file_first_names_an_unknown_parent(
    new_session: NewSession,
) -> None:
    session = new_session()
    session.append(user("a"))
    session.close()

    def line(entry_id: str, parent: str) -> str:
        message = {"role": "user", "content": [{"type": "text", "text": entry_id}]}
        return json.dumps(
            {"type": "message", "id": entry_id, "parent_id": parent, "timestamp": "t"}
            | {"message": message}
        )

    _with_lines(session, [line("aaaa0001", "aaaa0002"), line("aaaa0002", "aaaa0001")], at=3)
    with SessionFile.open(session.path) as reopened:
        assert [entry.id for entry in reopened.branch()] == ["aaaa0001", "aaaa0002"]
        assert len(reopened.tree()) == 3
        forked = reopened.fork("aaaa0002", session.path.with_name("f.jsonl"))
        assert [entry.id for entry in forked.branch()] == ["aaaa0001", "aaaa0002"]
        forked.close()


def test_a_header_nested_50000_deep_is_no_session(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"type": "session", "id": ' + DEEP + "}\n")
    with pytest.raises(SessionError, match="not an auger session file"):
        SessionFile.open(path)


def test_listing_skips_deep_lines_and_counts_the_rest(tmp_path: Path) -> None:
    folder = sessions_dir(tmp_path, "/p")
    folder.mkdir(parents=True)
    header = {"type": "session", "id": "s1", "cwd": "/p", "created": "t", "title": "x"}
    entry = {"type": "message", "id": "a", "parent_id": None, "timestamp": "t"}
    entry["message"] = {"role": "user", "content": []}
    lines = [json.dumps(header), '{"type": "custom", "data": ' + DEEP + "}", json.dumps(entry)]
    (folder / "s1.jsonl").write_text("\n".join(lines) + "\n")
    [summary] = list_sessions(tmp_path, "/p")
    assert summary.messages == 1
