"""Two SessionFile objects writing one file: each learns the other's entries before writing."""

from __future__ import annotations

from auger.session.store import SessionFile

from .conftest import NewSession, assistant, user


def test_a_stale_writer_loads_the_others_entries_before_its_own(new_session: NewSession) -> None:
    first = new_session()
    first.append(user("a"))
    root = first.append(assistant())
    with SessionFile.open(first.path) as second:
        mine = first.append(user("from the first"))
        theirs = second.append(user("from the second"))
        assert second.get(mine.id) == mine  # caught up before writing
        assert theirs.parent_id == root.id  # its own leaf: a branch, not lost
        assert second.catch_up() == []
        first.close()
    with SessionFile.open(first.path) as reopened:
        assert reopened.warnings == []
        assert [e.id for e in reopened.children(root.id)] == [mine.id, theirs.id]


def test_catch_up_reads_only_what_was_appended_and_numbers_its_lines(
    new_session: NewSession,
) -> None:
    first = new_session()
    first.append(user("a"))
    with SessionFile.open(first.path) as second:
        with first.path.open("ab") as raw:
            raw.write(b"not json\n")
        added = first.append(assistant())
        assert second.catch_up() == [added]
        [warning] = second.warnings
        assert warning.startswith(f"{first.path}:3: skipped an unreadable line (")
    first.close()
