"""Completion in the input: `/commands` at the start, `@path` anywhere."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

MAX_PATHS = 200
_AT = re.compile(r"(?:^|\s)@([^\s@]*)$")


class InputCompleter(Completer):
    """Completes command names (with their descriptions) and file paths after `@`."""

    def __init__(self, commands: Callable[[], Mapping[str, Any]], cwd: Path) -> None:
        self._commands = commands
        self._cwd = cwd

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
        if at is not None:
            yield from self._paths(at[1])

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
