"""Fuzzy, git-aware file finding for `@` completion: a query and a root to ranked paths."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

_SEPARATORS = "/_-. "
MAX_CANDIDATES = 100_000  # paths considered at most (a huge tree stays responsive)


def project_files(root: Path, git: str = "git") -> list[str]:
    """The files under `root` a person means: git's tracked and untracked-but-not-ignored
    files in a repository, else (no repository, or no `git` program) the files the `find`
    tool would list; relative, `/`-joined, with their directories (ending in `/`) too."""
    files = _git_files(root, git)
    if files is None:
        from itertools import islice

        from auger.tools.paths import Tree

        files = list(islice(Tree(root).files(), MAX_CANDIDATES))
    dirs = {f[: i + 1] for f in files for i, ch in enumerate(f) if ch == "/"}
    return sorted(dirs) + files


def _git_files(root: Path, git: str) -> list[str] | None:
    import os

    from auger.tools.git import git_command

    args = ["-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    # the finder runs in the host's process: git from the default PATH, nothing inherited
    argv, env = git_command(args, {"PATH": os.defpath}, git)
    try:
        done = subprocess.run(
            argv, capture_output=True, timeout=10, check=False, env=env, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None  # not a repository (or no git)
    names = done.stdout.decode(errors="replace").split("\0")
    return [n for n in names[:MAX_CANDIDATES] if n and (root / n).exists()]


def score(query: str, path: str) -> int | None:
    """How well `path` matches `query` (higher is better), or `None` when the query's
    characters do not all appear in it in order. Case-insensitive; matches that start a
    segment or end a word, run on, or fall in the file name count more; shorter paths win
    ties. Each place the query's first character occurs is tried as the start."""
    if not query:
        return -len(path)
    query, lowered = query.lower(), path.lower()
    name_start = path.rstrip("/").rfind("/") + 1
    best: int | None = None
    begin = lowered.find(query[0])
    while begin >= 0:
        points = _greedy(query, path, lowered, begin, name_start)
        if points is None:
            break  # a later start cannot fit the query either
        best = points if best is None else max(best, points)
        begin = lowered.find(query[0], begin + 1)
    if best is None:
        return None
    if query in lowered[name_start:]:
        best += 2 * len(query)
    return best * 100 - len(path)


def _greedy(query: str, path: str, lowered: str, begin: int, name_start: int) -> int | None:
    total, at, previous = 0, begin, -2
    for ch in query:
        found = lowered.find(ch, at)
        if found < 0:
            return None
        points = 1
        if found == previous + 1:
            points += 4
        if found == 0 or path[found - 1] in _SEPARATORS:
            points += 3
        if found >= name_start:
            points += 2
        total += points
        previous, at = found, found + 1
    if at == len(path) or path[at] in _SEPARATORS:  # the last match ends a word
        total += 3
    return total


def rank(query: str, paths: Iterable[str], limit: int = 50) -> list[str]:
    """The `limit` best matches of `query` among `paths`, best first."""
    scored = [(s, p) for p in paths if (s := score(query, p)) is not None]
    scored.sort(key=lambda sp: (-sp[0], sp[1]))
    return [p for _, p in scored[:limit]]


def find_files(query: str, root: Path, limit: int = 50, git: str = "git") -> list[str]:
    """The project's files and folders that best match `query`, best first."""
    return rank(query.lstrip("@"), project_files(root, git), limit)
