"""The stop signals of a host that runs one piece of work (`auger -p`): SIGINT, SIGTERM and
SIGHUP cancel it the way Ctrl-C does; a second one exits at once, whatever is stuck.

The handlers are Python-level (`signal.signal`), not the event loop's: they run on the main
thread between two bytecodes even while a handler holds the loop (a `time.sleep` in an
`async def`), so the second signal always ends the process with 128 + its number.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What stops `auger -p` cleanly; SIGTERM exits 143 and SIGHUP 129 (128 + the signal)."""


class StopSignals:
    """While installed, the first stop signal calls `cancel` (a thread-safe request), the
    second exits with 128 + its number (the processes the work started are killed by that
    first `cancel`)."""

    def __init__(self, cancel: Callable[[], None]) -> None:
        self._cancel = cancel
        self.received: list[int] = []
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        for signum in STOP_SIGNALS:
            with contextlib.suppress(ValueError):  # not the main thread: the caller's to handle
                self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if len(self.received) > 1:
            os._exit(128 + signum)
        self._cancel()
