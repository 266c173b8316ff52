"""A session file together with the model context it gives, kept in step."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import msgspec

from auger.llm.messages import AssistantMessage, Message, UserMessage, message_from_dict
from auger.llm.text import escape_deep
from auger.records import NoticeLevel
from auger.session.compaction import estimate
from auger.session.context import build_context
from auger.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
)
from auger.session.store import SessionFile

_encode = msgspec.json.Encoder().encode

E = TypeVar("E")
Notify = Callable[[str, NoticeLevel], None]
"""Where a notice goes: `(message, level)`."""

CONTEXT_ENTRIES = (CompactionEntry, CustomMessageEntry, BranchSummaryEntry)
"""Entries other than messages that change what the model is sent."""


def _encodable(message: Message) -> Message:
    data = message.to_dict()
    try:
        _encode(data)
    except UnicodeEncodeError:
        return message_from_dict(escape_deep(data))
    return message


def _finished_turn_after(session: SessionFile, leaf: str | None) -> bool:
    """Whether the file's leaf ends a finished turn (an answer calling no tools) on a branch
    through `leaf`."""
    branch = session.branch()
    messages = [entry for entry in branch if isinstance(entry, MessageEntry)]
    last = messages[-1] if messages else None
    finished = (
        isinstance(last, MessageEntry)
        and isinstance(last.message, AssistantMessage)
        and not last.message.tool_calls
    )
    return finished and (leaf is None or any(entry.id == leaf for entry in branch))


class Conversation:
    """The session being talked in: its tree of entries, and the messages the model is sent.

    `messages` grows with every appended message and is rebuilt from the branch only when the
    branch itself changes (compaction, navigation, a switch), so a turn never re-reads the tree.
    """

    def __init__(self, session: SessionFile, notify: Notify | None = None) -> None:
        self.session = session
        self._notify = notify
        self.messages: list[Message] = build_context(session.branch())
        self._anchor: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        """The session's id."""
        return self.session.header.id

    @property
    def path(self) -> Path | None:
        """The session file, once it has been written."""
        return self.session.path if self.session.exists else None

    def append(self, message: Message) -> None:
        """Add a message to the context and the session; bytes that were not UTF-8 (lone
        surrogates) are escaped first, so neither the request nor the file can fail on them."""
        message = _encodable(message)
        self._follow(isinstance(message, UserMessage))
        self.messages.append(message)
        self._saving(lambda: self.session.append(MessageEntry(message)))
        if isinstance(message, AssistantMessage):
            usage = message.usage
            self._anchor = (len(self.messages), usage.input_tokens + usage.output_tokens)

    def append_entry(self, entry: Entry) -> Entry:
        """Add a non-message entry; the context is rebuilt if the entry changes it."""
        self._follow(False)
        written = self._saving(lambda: self.session.append(entry))
        if isinstance(written, CONTEXT_ENTRIES):
            self.rebuild()
        return written

    def _follow(self, new_turn: bool) -> None:
        """Before writing, take in what another process appended to the file meanwhile.

        A new prompt after the other's finished turn that went on from our leaf continues
        after it; anything else would hide one of the two on a side branch, so this
        conversation forks into a new session file. Either way a notice says which.
        """
        session = self.session
        leaf = session.leaf_id
        moved = session.catch_up()
        if not moved:
            return
        count = f"{len(moved)} entr{'y' if len(moved) == 1 else 'ies'}"
        if new_turn and _finished_turn_after(session, leaf):
            self.rebuild()
            self._say(
                f"another auger process added {count} to session {session.header.id} "
                "since this one loaded it; continuing after them"
            )
            return
        session.leaf_id = leaf
        path = session.path.with_name(f"{os.urandom(6).hex()}.jsonl")
        self.session = session.fork(leaf, path)
        session.close()
        self._say(
            f"another auger process added {count} to session {session.header.id} while this "
            f"one was using it; this conversation continues in a new session "
            f"{self.session.header.id} ({path})"
        )

    def _say(self, message: str) -> None:
        if self._notify is not None:
            self._notify(message, "warning")

    def _saving(self, write: Callable[[], E]) -> E:
        """Run a write; the first time the file stops being written, say so once."""
        was = self.session.unsaved
        written = write()
        if self.session.unsaved and not was and self._notify is not None:
            self._notify(
                f"the session is not being saved ({self.session.unsaved}): "
                "this conversation goes on in memory only",
                "warning",
            )
        return written

    def rebuild(self) -> None:
        """Rebuild the context from the current branch."""
        self.messages = build_context(self.session.branch())
        self._anchor = None

    def context_tokens(self, system: str) -> int:
        """How many tokens the next request will carry: the last response's reported input
        and output, plus an estimate of what was added since (or of everything, before any)."""
        if self._anchor is None:
            start, tokens = 0, len(system) // 4
        else:
            start, tokens = self._anchor
        return tokens + sum(estimate(m) for m in self.messages[start:])
