"""Completion in the input: `/commands` at the start, `@path` anywhere."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

MAX_PATHS = 200
FILES_TTL = 5.0
"""Seconds the project's file list is reused between keystrokes."""
_AT = re.compile(r"(?:^|\s)@([^\s@]*)$")


class InputCompleter(Completer):
    """Completes command names (with their descriptions) and file paths after `@`."""

    def __init__(self, commands: Callable[[], Mapping[str, Any]], cwd: Path) -> None:
        self._commands = commands
        self._cwd = cwd
        self._files: tuple[float, list[str]] | None = None

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterator[Completion]:
        """The completions for the text before the cursor."""
        text = document.text_before_cursor
        if text.startswith("/") and not any(c.isspace() for c in text):
            for name, command in sorted(self._commands().items()):
                if name.startswith(text[1:]):
                    yield Completion(
                        f"/{name}",
                        start_position=-len(text),
                        display_meta=getattr(command, "description", ""),
                    )
            return
        at = _AT.search(text)
        if at is None:
            return
        partial = at[1]
        if partial and "/" not in partial and not partial.startswith((".", "~")):
            yield from self._fuzzy(partial)
        else:
            yield from self._paths(partial)

    def _fuzzy(self, query: str) -> Iterator[Completion]:
        """A bare word matches anywhere in the project's paths (git-aware), best first."""
        from auger.commands import project_files, rank

        now = time.monotonic()
        if self._files is None or now - self._files[0] > FILES_TTL:
            self._files = (now, project_files(self._cwd))
        for path in rank(query, self._files[1], MAX_PATHS):
            yield Completion(path, start_position=-len(query), display=path)

    def _paths(self, partial: str) -> Iterator[Completion]:
        folder, slash, prefix = partial.rpartition("/")
        head = folder + slash
        where = Path(os.path.expanduser(head or "."))
        if not where.is_absolute():
            where = self._cwd / where
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            name = entry.name
            if not name.startswith(prefix) or (name.startswith(".") and not prefix.startswith(".")):
                continue
            is_dir = entry.is_dir()
            yield Completion(
                head + name + ("/" if is_dir else ""),
                start_position=-len(partial),
                display=name + ("/" if is_dir else ""),
            )
            shown += 1
            if shown == MAX_PATHS:
                return
