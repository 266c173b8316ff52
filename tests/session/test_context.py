"""The model context of a branch, its model and its totals."""

from __future__ import annotations

import msgspec

from auger.llm.messages import Message, TextPart, ToolResultMessage, UserMessage
from auger.llm.usage import Usage
from auger.session.context import (
    BRANCH_SUMMARY_PREFIX,
    COMPACTION_PREFIX,
    CONTEXT_CLOSE,
    CONTEXT_OPEN,
    INTERRUPTED,
    Totals,
    build_context,
    last_model,
    totals,
)
from auger.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    Unknown,
)

from .conftest import assistant, call, result, user


def chain(*entries: Entry) -> list[Entry]:
    """`entries` as a branch: ids e0, e1, … each the child of the one before."""
    out: list[Entry] = []
    for i, entry in enumerate(entries):
        parent = out[-1].id if out else None
        out.append(msgspec.structs.replace(entry, id=f"e{i}", parent_id=parent))
    return out


def messages_of(branch: list[Entry]) -> list[Message]:
    return [entry.message for entry in branch if isinstance(entry, MessageEntry)]


def interrupted(call_id: str, name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(call_id, name, (TextPart(INTERRUPTED),), is_error=True)


def test_messages_in_order() -> None:
    c1 = call("c1")
    branch = chain(user("q"), assistant(c1), result(c1), assistant(text="a"))
    assert build_context(branch) == messages_of(branch)


def test_entries_that_send_nothing() -> None:
    raw = {"type": "bookmark", "id": "u", "parent_id": None, "timestamp": ""}
    branch = chain(
        user("q"),
        CustomEntry("state", {"x": 1}),
        LabelEntry("e0", "here"),
        SessionInfoEntry("name"),
        ModelChangeEntry("p", "m"),
        Unknown(raw, id="u"),
        assistant(text="a"),
    )
    assert build_context(branch) == [branch[0].message, branch[-1].message]


def test_custom_messages_and_branch_summaries_are_user_messages() -> None:
    branch = chain(
        user("q"),
        CustomMessageEntry("note", "from an extension", display=False),
        BranchSummaryEntry("we tried X", "e9"),
    )
    assert build_context(branch)[1:] == [
        UserMessage.of("from an extension"),
        UserMessage.of(BRANCH_SUMMARY_PREFIX + "we tried X"),
    ]


def test_compaction_replaces_what_came_before_the_first_kept_entry() -> None:
    branch = chain(
        user("old"),
        assistant(text="old answer"),
        user("kept"),
        assistant(text="kept answer"),
        CompactionEntry("summary one", "e2", 1000),
        user("after"),
    )
    assert build_context(branch) == [
        UserMessage.of(COMPACTION_PREFIX + "summary one"),
        branch[2].message,
        branch[3].message,
        branch[5].message,
    ]


def test_the_latest_context_message_compacted_away_follows_the_summary() -> None:
    old, new = (CONTEXT_OPEN + f"AGENTS.md {n}" + CONTEXT_CLOSE for n in (1, 2))
    branch = chain(
        CustomMessageEntry("context", old, display=False),
        user("old"),
        CustomMessageEntry("context", new, display=False),
        user("later"),
        assistant(text="kept answer"),
        CompactionEntry("summary one", "e4", 1000),
    )
    summary = UserMessage.of(COMPACTION_PREFIX + "summary one")
    assert build_context(branch) == [summary, UserMessage.of(new), branch[4].message]
    kept_one = chain(*branch[:2], CompactionEntry("s", "e2", 10), *branch[2:5])
    assert build_context(kept_one)[:2] == [
        UserMessage.of(COMPACTION_PREFIX + "s"),
        UserMessage.of(new),
    ]
    assert sum(m.text == new for m in build_context(kept_one)) == 1  # kept, not doubled


def test_latest_compaction_wins_and_earlier_ones_inside_it_send_nothing() -> None:
    branch = chain(
        user("a"),
        CompactionEntry("first", "e0", 10),
        user("b"),
        CompactionEntry("second", "e0", 20),
        user("c"),
    )
    assert build_context(branch) == [
        UserMessage.of(COMPACTION_PREFIX + "second"),
        branch[0].message,
        branch[2].message,
        branch[4].message,
    ]


def test_compaction_whose_first_kept_entry_is_missing_keeps_only_what_follows() -> None:
    branch = chain(user("a"), CompactionEntry("s", "gone", 10), user("b"))
    assert build_context(branch) == [UserMessage.of(COMPACTION_PREFIX + "s"), branch[2].message]


def test_unanswered_calls_get_interrupted_results_after_the_existing_ones() -> None:
    c1, c2, c3 = call("c1"), call("c2", "bash"), call("c3")
    branch = chain(
        user("q"),
        assistant(c1, c2, c3),
        result(c2),
        CustomEntry("state"),
        user("next"),
    )
    assert build_context(branch) == [
        branch[0].message,
        branch[1].message,
        branch[2].message,
        interrupted("c1"),
        interrupted("c3"),
        branch[4].message,
    ]


def test_calls_left_open_at_the_end_of_the_branch_are_interrupted() -> None:
    c1 = call("c1")
    branch = chain(user("q"), assistant(c1))
    assert build_context(branch)[-1] == interrupted("c1")


def test_a_reused_call_id_is_matched_to_its_own_turn() -> None:
    first, second = call("call_0"), call("call_0")
    branch = chain(user("q"), assistant(first), user("again"), assistant(second), result(second))
    context = build_context(branch)
    assert context[2] == interrupted("call_0")
    assert context[-1] == branch[-1].message


def test_last_model() -> None:
    assert last_model([]) is None
    assert last_model(chain(user())) is None
    assert last_model(chain(assistant(model="m1"), user())) == ("prov", "m1")
    assert last_model(chain(assistant(model="m1"), ModelChangeEntry("p2", "m2"))) == ("p2", "m2")
    assert last_model(chain(ModelChangeEntry("p2", "m2"), assistant(model="m3"))) == ("prov", "m3")


def test_totals_sum_usage_and_count_messages() -> None:
    c1 = call("c1")
    branch = chain(
        user(),
        assistant(c1, usage=Usage(10, 5, cost=0.5)),
        result(c1),
        CustomEntry("x"),
        assistant(usage=Usage(20, 1, cache_read_tokens=4, cost=0.25)),
    )
    assert totals(branch) == Totals(Usage(30, 6, 4, None, 0.75), 4)
    unpriced = chain(assistant(usage=Usage(1, 1)), assistant())
    assert totals(unpriced).usage.cost is None
    assert totals([]) == Totals(Usage(cost=0.0), 0)


def test_a_result_whose_call_was_lost_is_left_out() -> None:
    c1 = call("c1")
    branch = chain(user("q"), result(c1), assistant(text="a"))
    assert build_context(branch) == [branch[0].message, branch[2].message]
