"""What processes are alive, read from /proc."""

from __future__ import annotations

import contextlib
from pathlib import Path


def running(marker: str) -> bool:
    """Whether a process whose command line holds `marker` is alive."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if marker.encode() in cmdline.read_bytes():
                return True
    return False
