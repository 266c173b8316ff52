"""The input's history file; when it cannot be read or written (a read-only home), history
goes on in memory, with one warning."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.history import FileHistory


class SafeHistory(FileHistory):
    """`FileHistory` that never raises into the screen: a failure to write turns it into
    history in memory (what was typed this session), said once through `warn`."""

    def __init__(self, path: Path, warn: Callable[[str], None]) -> None:
        super().__init__(str(path))
        self._path = path
        self._warn = warn
        self._broken = False

    def load_history_strings(self) -> Iterable[str]:
        """The saved entries, newest first; none when the file cannot be read."""
        try:
            return list(super().load_history_strings())
        except OSError:
            return []

    def store_string(self, string: str) -> None:
        """Append `string` to the file, unless writing it has failed before."""
        if self._broken:
            return
        try:
            super().store_string(string)
        except OSError as exc:
            self._broken = True
            reason = exc.strerror or type(exc).__name__
            self._warn(f"input history is kept in memory only: cannot write {self._path}: {reason}")
