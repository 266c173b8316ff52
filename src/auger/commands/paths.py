"""Walking from the working directory up to the repository root."""

from __future__ import annotations

from pathlib import Path


def repo_root(cwd: Path) -> Path | None:
    """The nearest directory at or above `cwd` holding `.git`, if any."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def upward(cwd: Path) -> list[Path]:
    """`cwd` and its parents up to the repository root (just `cwd` outside a repository)."""
    root = repo_root(cwd)
    if root is None:
        return [cwd]
    return [cwd, *cwd.parents[: len(cwd.relative_to(root).parts)]]


def project_folders(cwd: Path) -> list[Path]:
    """Where the project's text files may resolve to: the project root."""
    return [repo_root(cwd) or cwd]
