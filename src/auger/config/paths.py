"""Where auger keeps its files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def auger_home(env: Mapping[str, str]) -> Path:
    """`$AUGER_HOME`, else `~/.auger`."""
    value = env.get("AUGER_HOME")
    if value:
        return Path(value).expanduser()
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".auger"


def display(path: Path) -> str:
    """`path` with the user's home shortened to `~`."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)
