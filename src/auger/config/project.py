"""The one root of everything project-scoped (trust, `.auger/`, settings, AGENTS.md, skills,
the sessions list): the git root above the working directory, else the nearest folder above it
holding a `.auger/` of a project, else the working directory itself."""

from __future__ import annotations

import os
from pathlib import Path


def project_root(cwd: Path, home: Path | None = None) -> Path:
    """The project `cwd` belongs to, symlinks resolved. A `.auger` that is auger's own home
    (`home`, or the default `~/.auger`) marks no project."""
    here = Path(os.path.realpath(cwd))
    folders = (here, *here.parents)
    git = next((d for d in folders if (d / ".git").exists()), None)
    if git is not None:
        return git
    homes = {Path(os.path.realpath(Path("~/.auger").expanduser()))}
    if home is not None:
        homes.add(Path(os.path.realpath(home)))
    marked = (d for d in folders if (d / ".auger").is_dir())
    return next((d for d in marked if Path(os.path.realpath(d / ".auger")) not in homes), here)
