"""Walking from the working directory up to the project root (`auger.config.project`)."""

from __future__ import annotations

from pathlib import Path

from auger.config.project import project_root


def upward(cwd: Path) -> list[Path]:
    """`cwd` and its parents up to the project root (just `cwd` when it is the root)."""
    here, root = cwd.resolve(), project_root(cwd)
    if here != root and root not in here.parents:
        return [cwd]
    return [here, *here.parents[: len(here.relative_to(root).parts)]]


def project_folders(cwd: Path) -> list[Path]:
    """Where the project's text files may resolve to: the project root."""
    return [project_root(cwd)]
