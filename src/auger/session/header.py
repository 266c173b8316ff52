"""The first line of a session file: what session it is, where, and which format."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import msgspec

from auger._version import __version__
from auger.session.entries import timestamp
from auger.session.files import SessionError

SCHEMA_VERSION = 1
"""The session file format this version writes and reads; a newer file is refused."""


_decode = msgspec.json.Decoder().decode


class SessionHeader(msgspec.Struct, frozen=True, kw_only=True):
    """The first line of a session file; a fork also names the session and entry it came from."""

    id: str
    cwd: str
    created: str = msgspec.field(default_factory=timestamp)
    title: str = ""
    version: int = SCHEMA_VERSION
    auger_version: str = __version__
    parent_session: str | None = None
    parent_session_id: str | None = None
    forked_from: str | None = None
    type: ClassVar[str] = "session"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; the fork fields only when set."""
        out: dict[str, Any] = {"type": self.type}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


def read_header(path: Path, line: bytes) -> SessionHeader:
    """The header of the session file at `path`, from its first line.

    Raises `SessionError` if the line is not a session header or its version is newer than ours.
    """
    try:
        data = _decode(line)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("type") != SessionHeader.type:
        raise SessionError(f"{path} is not an auger session file: its first line is no header")
    version = data.get("version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise SessionError(
            f"{path} is session format version {version}, newer than this auger's "
            f"{SCHEMA_VERSION}: upgrade auger to open it"
        )
    try:
        return msgspec.convert(data, SessionHeader)
    except msgspec.ValidationError as exc:
        raise SessionError(f"{path} has a bad session header: {exc}") from None
