"""Project instructions: AGENTS.md (or CLAUDE.md where a directory has none), re-read every turn,
each read safely (`config.textfile`): a file that may not be read is skipped with one notice."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from auger.commands.paths import project_folders, upward
from auger.config.textfile import TextFileError, read_text, user_folders

NAMES = ("AGENTS.md", "CLAUDE.md")


def instruction_files(home: Path, cwd: Path) -> list[Path]:
    """`~/.auger/AGENTS.md`, then one file per directory from the repository root down to cwd."""
    files = []
    for folder in [home, *reversed(upward(cwd))]:
        for name in NAMES:
            path = folder / name
            if os.path.lexists(path) and not path.is_dir():
                files.append(path)
                break
    return files


def _folders(path: Path, home: Path, cwd: Path, user_home: Path) -> list[Path]:
    return user_folders(home, user_home) if path.parent == home else project_folders(cwd)


def _texts(home: Path, cwd: Path, user_home: Path) -> list[tuple[Path, str | TextFileError]]:
    out: list[tuple[Path, str | TextFileError]] = []
    for path in instruction_files(home, cwd):
        try:
            out.append((path, read_text(path, _folders(path, home, cwd, user_home)).strip()))
        except TextFileError as exc:
            out.append((path, exc))
    return out


def render(home: Path, cwd: Path, user_home: Path | None = None) -> str:
    """The prompt section: each readable file's text under a heading naming it."""
    parts = [
        f"Instructions from {path}:\n\n{text}"
        for path, text in _texts(home, cwd, user_home or Path.home())
        if isinstance(text, str) and text
    ]
    return "\n\n".join(parts)


def extension(g: Any) -> None:
    """Registers the project-instructions prompt section; names each file it skips, once."""
    home, cwd, user_home = g.home, g.cwd, g.user_home
    for _, text in _texts(home, cwd, user_home):
        if isinstance(text, TextFileError):
            g.notify(f"instructions skipped: {text}", "warning")
    g.prompt("agents_md", lambda: render(home, cwd, user_home), context=True)
