"""The one safe reader for the text auger takes from a project or the user's folders (SPEC §7):
AGENTS.md and CLAUDE.md, prompt templates, skills, agent definitions.

A project is a stranger's files: `AGENTS.md -> /proc/self/environ` would send the environment
to the provider, a FIFO would hang the start. So only a regular file is read, a symlink is
followed only when it resolves inside one of the allowed folders (the project root for the
project's files; auger's home and the user's `~/.agents`, `~/.claude` for the user's own), the
credential file never, and at most `LIMIT` bytes. Anything else is a `TextFileError` whose
message names the file and why, for the one notice that says it was skipped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

LIMIT = 256 * 1024
CREDENTIALS = "auth.json"


class TextFileError(Exception):
    """A text file that is not read: not a regular file, a link out, or unreadable."""


def within(path: Path, folders: Sequence[Path]) -> bool:
    """Whether the real `path` is inside one of the real `folders`."""
    real = Path(os.path.realpath(path))
    for folder in folders:
        base = Path(os.path.realpath(folder))
        if real == base or base in real.parents:
            return True
    return False


def user_folders(home: Path, user_home: Path) -> list[Path]:
    """Where the user's own text files may resolve to: auger's home, `~/.agents`, `~/.claude`."""
    return [home, user_home / ".agents", user_home / ".claude"]


def read_text(path: Path, folders: Sequence[Path], limit: int = LIMIT) -> str:
    """The text of `path` (UTF-8, undecodable bytes replaced, cut at `limit` bytes), when it is
    a regular file whose real location is inside `folders`; else `TextFileError`."""
    real = Path(os.path.realpath(path))
    if not within(real, folders):
        raise TextFileError(f"{path} is a link to {real}, outside the folders it may point into")
    if real.name == CREDENTIALS:
        raise TextFileError(f"{path} resolves to a credential file")
    if real.parts[1:2] in (("proc",), ("sys",), ("dev",)):
        raise TextFileError(f"{path} resolves to {real}, which is not a regular file")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW)
    except OSError as exc:
        raise TextFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TextFileError(f"{path} is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(limit)
    except OSError as exc:
        raise TextFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")
