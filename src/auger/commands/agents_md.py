"""Project instructions: AGENTS.md (or CLAUDE.md where a directory has none), re-read every turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.commands.paths import upward

NAMES = ("AGENTS.md", "CLAUDE.md")


def instruction_files(home: Path, cwd: Path) -> list[Path]:
    """`~/.auger/AGENTS.md`, then one file per directory from the repository root down to cwd."""
    files = []
    for folder in [home, *reversed(upward(cwd))]:
        for name in NAMES:
            path = folder / name
            if path.is_file():
                files.append(path)
                break
    return files


def render(home: Path, cwd: Path) -> str:
    """The prompt section: each file's text under a heading naming it."""
    parts = []
    for path in instruction_files(home, cwd):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if text:
            parts.append(f"Instructions from {path}:\n\n{text}")
    return "\n\n".join(parts)


def extension(g: Any) -> None:
    """Registers the project-instructions prompt section."""
    home, cwd = g.home, g.cwd
    g.prompt("agents_md", lambda: render(home, cwd), context=True)
