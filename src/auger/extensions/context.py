"""What a two-argument handler receives as `ctx`: a small window onto its Runtime."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.llm.messages import Message
from auger.llm.records import Record
from auger.session.entries import CustomEntry, CustomMessageEntry, Entry

if TYPE_CHECKING:
    from auger.runtime import Runtime


class HandlerContext:
    """The session a handler runs in: where, with which model, and what it may do."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    @property
    def cwd(self) -> Path:
        """The session's working directory."""
        return self._rt.cwd

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self._rt.session_id

    @property
    def model(self) -> str:
        """The current model as `provider/name`."""
        return self._rt.model.id

    @property
    def env(self) -> Mapping[str, str]:
        """The environment the session runs commands with."""
        return self._rt.env

    @property
    def capabilities(self) -> frozenset[str]:
        """What the host can do (`ask`, `confirm`, …): check before asking."""
        return self._rt.host.capabilities

    @property
    def transcript_path(self) -> Path | None:
        """The session file, once it exists."""
        return self._rt.transcript_path

    @property
    def settings(self) -> Any:
        """The merged settings."""
        return self._rt.settings

    @property
    def messages(self) -> tuple[Message, ...]:
        """The stored conversation (a snapshot)."""
        return tuple(self._rt.messages)

    def branch(self) -> list[Entry]:
        """The session's entries from the root to the current leaf."""
        return self._rt.conversation.session.branch()

    def append_custom(self, kind: str, data: Any = None) -> None:
        """Save extension state in the session (never sent to the model)."""
        self._rt.conversation.append_entry(CustomEntry(kind, data))

    def append_message(self, kind: str, content: str, display: bool = True) -> None:
        """Add a message of your own to the conversation: the model is sent it."""
        self._rt.conversation.append_entry(CustomMessageEntry(kind, content, display))

    def notify(self, message: str, level: str = "info") -> None:
        """Tell the user something."""
        self._rt.notify(message, level)

    def emit(self, record: Record) -> None:
        """Send a record to the stream."""
        self._rt.emit(record)

    def ask(self, question: str, options: list[str] | None = None, secret: bool = False) -> Any:
        """Ask the user; `None` when the host cannot ask."""
        host = self._rt.host
        return host.ask(question, options, secret) if "ask" in host.capabilities else None

    def confirm(self, question: str) -> bool:
        """Ask the user to confirm; `False` when the host cannot ask."""
        host = self._rt.host
        return host.confirm(question) if "confirm" in host.capabilities else False

    def cancel(self) -> None:
        """Cancel the running turn."""
        self._rt.cancel()
