"""Property tests: random session trees give the same model context however the branch is
reached — live, after navigating, reopened from disk, forked — as replaying it straight."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from auger.llm.messages import AssistantMessage, Message, ToolCall, ToolResultMessage
from auger.session.context import build_context
from auger.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
)
from auger.session.store import SessionFile, SessionHeader

from .conftest import assistant, call, result, user

TEXT = st.text("abc xyz", max_size=8)


def replay_straight(branch: list[Entry], path: Path) -> list[Message]:
    """The context of `branch` appended entry by entry to a new, unbranched session."""
    ids: dict[str, str] = {}
    with SessionFile.create(path, SessionHeader(id=path.stem, cwd="/p")) as session:
        for entry in branch:
            if isinstance(entry, CompactionEntry):
                entry = msgspec.structs.replace(
                    entry, first_kept_id=ids.get(entry.first_kept_id, "")
                )
            ids[entry.id] = session.append(entry).id
        return build_context(session.branch())


def answered_in_place(context: list[Message]) -> bool:
    """Every tool call is answered exactly once in the run of results after its message."""
    for i, message in enumerate(context):
        if isinstance(message, AssistantMessage):
            run: list[str] = []
            for later in context[i + 1 :]:
                if not isinstance(later, ToolResultMessage):
                    break
                run.append(later.call_id)
            if sorted(run) != sorted(tool_call.call_id for tool_call in message.tool_calls):
                return False
    return True


class SessionTrees(RuleBasedStateMachine):
    """Grows one session at random, keeping its own record of the tree to check against."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.session = SessionFile.create(self.dir / "main.jsonl", SessionHeader(id="m", cwd="/p"))
        self.parents: dict[str, str | None] = {}
        self.leaf: str | None = None
        self.open_calls: list[ToolCall] = []
        self.counter = 0

    def teardown(self) -> None:
        self.session.close()
        self.tmp.cleanup()

    def next_name(self) -> str:
        self.counter += 1
        return f"x{self.counter}"

    def add(self, entry: Entry) -> Entry:
        written = self.session.append(entry)
        self.parents[written.id] = self.leaf
        self.leaf = written.id
        return written

    def expected_branch(self, leaf: str | None) -> list[str]:
        ids: list[str] = []
        while leaf is not None:
            ids.append(leaf)
            leaf = self.parents[leaf]
        return ids[::-1]

    def check(self, session: SessionFile, leaf: str | None) -> None:
        branch = session.branch() if leaf is None else session.branch(leaf)
        if leaf is None:
            leaf = session.leaf_id
        assert [entry.id for entry in branch] == self.expected_branch(leaf)
        context = build_context(branch)
        assert context == replay_straight(branch, self.dir / f"{self.next_name()}.jsonl")
        assert answered_in_place(context)

    # -- growing the tree ---------------------------------------------------------------

    @rule(text=TEXT)
    def prompt(self, text: str) -> None:
        self.add(user(text))
        self.open_calls = []

    @rule(text=TEXT, calls=st.integers(0, 3))
    def answer(self, text: str, calls: int) -> None:
        made = [call(self.next_name(), "bash") for _ in range(calls)]
        self.add(assistant(*made, text=text))
        self.open_calls = made

    @precondition(lambda self: self.open_calls)
    @rule(data=st.data())
    def tool_result(self, data: st.DataObject) -> None:
        tool_call = data.draw(st.sampled_from(self.open_calls))
        self.open_calls.remove(tool_call)
        self.add(result(tool_call))

    @rule(kind=st.sampled_from(["custom", "custom_message", "model", "name"]), text=TEXT)
    def other(self, kind: str, text: str) -> None:
        entries: dict[str, Entry] = {
            "custom": CustomEntry("state", {"t": text}),
            "custom_message": CustomMessageEntry("note", text),
            "model": ModelChangeEntry("p", text),
            "name": SessionInfoEntry(text),
        }
        self.add(entries[kind])
        if kind == "custom_message":
            self.open_calls = []

    @precondition(lambda self: self.parents)
    @rule(data=st.data())
    def label(self, data: st.DataObject) -> None:
        target = data.draw(st.sampled_from(list(self.parents)))
        self.add(LabelEntry(target, data.draw(st.none() | TEXT)))

    @precondition(lambda self: self.leaf is not None)
    @rule(data=st.data(), summary=TEXT)
    def compact(self, data: st.DataObject, summary: str) -> None:
        first_kept = data.draw(st.sampled_from(self.expected_branch(self.leaf)))
        self.add(CompactionEntry(summary, first_kept, 1000))

    @rule(data=st.data(), summary=st.none() | TEXT)
    def navigate(self, data: st.DataObject, summary: str | None) -> None:
        target = data.draw(st.none() | st.sampled_from(list(self.parents) or [None]))
        old = self.leaf
        written = self.session.set_leaf(target, summary)
        self.open_calls = []
        if summary is None:
            assert written is None
            self.leaf = target
        else:
            assert isinstance(written, BranchSummaryEntry)
            assert (written.parent_id, written.from_id) == (target, old)
            self.parents[written.id] = target
            self.leaf = written.id
        assert self.session.leaf_id == self.leaf

    # -- checking -----------------------------------------------------------------------

    @precondition(lambda self: self.parents)
    @rule(data=st.data())
    def fork(self, data: st.DataObject) -> None:
        target = data.draw(st.none() | st.sampled_from(list(self.parents)))
        path = self.dir / f"{self.next_name()}.jsonl"
        with self.session.fork(target, path) as forked:
            assert forked.leaf_id == target
            assert forked.header.forked_from == target
            self.check(forked, None)
            self.check(self.session, target)
        if path.exists():
            with SessionFile.open(path) as reopened:
                assert reopened.leaf_id == target
                self.check(reopened, None)

    @invariant()
    def live_branch_matches(self) -> None:
        assert self.session.leaf_id == self.leaf
        self.check(self.session, None)

    @invariant()
    def reopened_branch_matches(self) -> None:
        if not self.session.exists:
            return
        with SessionFile.open(self.session.path) as reopened:
            assert reopened.warnings == []
            assert reopened.leaf_id == self.leaf
            assert reopened.entries == self.session.entries
            self.check(reopened, None)


SessionTrees.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None, derandomize=True
)
test_session_trees = SessionTrees.TestCase
