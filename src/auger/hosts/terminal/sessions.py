"""Where the terminal's session picker finds saved sessions, and how it resumes one."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.config import auger_home

if TYPE_CHECKING:
    from auger.hosts.terminal.text import Theme
    from auger.runtime import Runtime


@dataclass(frozen=True)
class Sessions:
    """Where the session picker finds saved sessions, and how it resumes one."""

    saved: Callable[[], Sequence[tuple[str, str, float]]]
    """`(id, title, age in seconds)` of each saved session, newest first."""
    resume: Callable[[Runtime, str], Coroutine[Any, Any, None]]
    """Resume session `id` on the Runtime (awaited on the Runtime's loop)."""


def saved_sessions() -> Sessions:
    """The picker over this directory's saved sessions, resuming through `Runtime.switch`."""
    from auger import sessions

    home, cwd = auger_home(os.environ), Path(os.getcwd())

    def saved() -> list[tuple[str, str, float]]:
        now = time.time()
        return [(s.id, s.name or s.title, now - s.modified) for s in sessions.list(home, cwd)]

    async def resume(runtime: Runtime, session_id: str) -> None:
        await runtime.switch(sessions.find(home, cwd, session_id))

    return Sessions(saved, resume)


def resume_hint(runtime: Runtime | None, theme: Theme) -> str:
    """The line saying how to come back to the session just left, once it was saved."""
    path = runtime.transcript_path if runtime is not None else None
    if runtime is None or path is None or not path.exists():
        return ""
    return theme.paint("grey", f"resume with `auger -r {runtime.session_id}`") + "\n"
