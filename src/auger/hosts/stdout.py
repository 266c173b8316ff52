"""When standard output stops taking what auger prints: a closed pipe, a full disk."""

from __future__ import annotations

import os
import sys
from typing import TextIO

SIGPIPE_EXIT = 141
"""How a command cut off by a closed pipe conventionally exits (128 + SIGPIPE)."""


def stdout_failed(exc: OSError, err: TextIO | None = None) -> int:
    """Point stdout at /dev/null (so the interpreter's last flush cannot fail again) and
    return the exit code: a closed pipe (`| head`) ends silently, any other failure gets one
    line on stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(exc, BrokenPipeError):
        return SIGPIPE_EXIT
    err = err or sys.stderr
    if err is not None:
        err.write(f"auger: cannot write to standard output: {exc.strerror or exc}\n")
    return 1
