"""Moving between sessions and within one: fork, new, switch, navigate, labels, names."""

from __future__ import annotations

import os
from pathlib import Path

from auger.bus import Bus
from auger.engine.compact import Compaction
from auger.engine.state import AgentState, Opening, Place
from auger.engine.stream import Stream
from auger.events import SessionBeforeFork, SessionBeforeSwitch
from auger.session.compaction import branch_summary_messages
from auger.session.context import totals
from auger.session.conversation import Conversation
from auger.session.entries import LabelEntry, MessageEntry, SessionInfoEntry
from auger.session.paths import new_session_path
from auger.session.store import SessionFile, SessionHeader


def new_session(place: Place, save: bool) -> SessionFile:
    """A fresh session for the directory (its file is written with its first entry)."""
    session_id = os.urandom(6).hex()
    header = SessionHeader(id=session_id, cwd=str(place.cwd))
    return SessionFile.create(
        new_session_path(place.home, place.cwd, session_id), header, persist=save
    )


def enter(state: AgentState, stream: Stream, session: SessionFile, opening: Opening) -> None:
    """Continue in `session` from now on; the next stream opens with its `session_start`."""
    state.conversation.session.close()
    state.conversation = Conversation(session, stream.notify)
    state.opening = opening
    for warning in session.warnings:
        stream.notify(warning, "warning")
    state.ledger.total = state.model.no_usage + totals(session.branch()).usage


class Sessions:
    """The Engine's session operations (fork, new, switch, navigate), each asking the
    extensions first."""

    def __init__(self, state: AgentState, stream: Stream, bus: Bus) -> None:
        self._state = state
        self._stream = stream
        self._bus = bus

    async def fork(self, entry_id: str | None = None) -> Path | None:
        """Continue in a new session holding the path to `entry_id` (default: the leaf)."""
        state = self._state
        session = state.conversation.session
        at = entry_id or session.leaf_id
        out = await self._bus.emit(SessionBeforeFork(state.conversation.id, at))
        if out.stopped:
            self._stream.notify("fork cancelled by an extension", "warning")
            return None
        new_id = os.urandom(6).hex()
        place = state.place
        forked = session.fork(at, new_session_path(place.home, place.cwd, new_id))
        enter(state, self._stream, forked, "new")
        return forked.path

    async def new(self) -> bool:
        """Continue in a fresh, empty session."""
        fresh = new_session(self._state.place, self._state.conversation.session.persist)
        return await self._switch_to(fresh, "new")

    async def switch(self, path: str | Path) -> bool:
        """Continue in the saved session at `path`."""
        return await self._switch_to(SessionFile.open(path), "restore")

    async def _switch_to(self, session: SessionFile, opening: Opening) -> bool:
        current = self._state.conversation.session
        out = await self._bus.emit(SessionBeforeSwitch(str(current.path), str(session.path)))
        if out.stopped:
            self._stream.notify("session switch cancelled by an extension", "warning")
            session.close()
            return False
        enter(self._state, self._stream, session, opening)
        return True

    async def navigate(self, entry_id: str | None, summarize_left: bool = False) -> None:
        """Move the leaf to `entry_id`; with `summarize_left`, the branch left behind is
        summarised into a `branch_summary` entry."""
        state = self._state
        session = state.conversation.session
        summary = None
        if summarize_left:
            target = {e.id for e in session.branch(entry_id)} if entry_id else set()
            if any(e.id not in target and isinstance(e, MessageEntry) for e in session.branch()):
                asked = branch_summary_messages(state.conversation.messages)
                compaction = Compaction.of(state, self._stream, self._bus)
                system, tools = state.prompt()
                label = "summarizing the branch you left"
                summary = await compaction.summarize(asked, system, tools, label)
        session.set_leaf(entry_id, summary or None)
        state.conversation.rebuild()

    def label(self, entry_id: str, label: str | None) -> None:
        """Put a label on an entry of the tree (`None` clears it)."""
        self._state.conversation.append_entry(LabelEntry(entry_id, label))

    def set_name(self, name: str) -> None:
        """Name the session."""
        self._state.conversation.append_entry(SessionInfoEntry(name))
