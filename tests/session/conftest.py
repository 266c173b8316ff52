"""Helpers for the session tests: short message builders and a session in a temp dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from auger.llm.messages import AssistantMessage, TextPart, ToolCall, ToolResultMessage, UserMessage
from auger.llm.usage import Usage
from auger.session.entries import MessageEntry
from auger.session.store import SessionFile, SessionHeader

NewSession = Callable[..., SessionFile]
USAGE = Usage(10, 5, cost=0.5)


def user(text: str = "hello") -> MessageEntry:
    """A user message entry."""
    return MessageEntry(UserMessage.of(text))


def call(call_id: str, name: str = "read") -> ToolCall:
    """A tool call with empty arguments."""
    return ToolCall(call_id, name, "{}")


def assistant(
    *calls: ToolCall, text: str = "ok", usage: Usage = USAGE, model: str = "m1"
) -> MessageEntry:
    """An assistant message entry with some text and `calls`."""
    stop = "tool_use" if calls else "stop"
    return MessageEntry(AssistantMessage((TextPart(text), *calls), usage, stop, "prov", model))


def result(tool_call: ToolCall, text: str = "done") -> MessageEntry:
    """The successful result of `tool_call`."""
    return MessageEntry(ToolResultMessage(tool_call.call_id, tool_call.name, (TextPart(text),)))


@pytest.fixture
def new_session(tmp_path: Path) -> Iterator[NewSession]:
    """Makes sessions under `tmp_path` (`name.jsonl`), closed after the test."""
    made: list[SessionFile] = []

    def make(name: str = "s1", cwd: str = "/project") -> SessionFile:
        session = SessionFile.create(tmp_path / f"{name}.jsonl", SessionHeader(id=name, cwd=cwd))
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()
