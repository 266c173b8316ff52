"""Paths for the file tools: errors, display, ordering, globs and a .gitignore-aware walk.

pathspec reads each pattern (git's wildmatch: `*`, `?`, `[...]`, `**`, escapes, trailing
spaces); this module applies the patterns in git's order. The walk answers what
`rg --files --hidden -g '!.git'` answers, so the search tools' fallback gives ripgrep's results:
hidden files are included, `.git` is skipped, symlinks are not followed, and `.gitignore` files
apply as git applies them — inside a repository only, from the directory of the path up to the
repository root, deeper files first, the last matching line of a file deciding, `!`
re-including, a trailing `/` matching directories only, nothing re-included under an excluded
directory.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from auger.tools.base import ToolError, ToolErrorType


def os_error(exc: OSError, path: str | Path) -> ToolError:
    """The tool error for a failed file operation on `path`."""
    kinds: dict[type[OSError], tuple[ToolErrorType, str]] = {
        FileNotFoundError: ("not_found", "does not exist"),
        IsADirectoryError: ("is_directory", "is a directory"),
        NotADirectoryError: ("not_a_directory", "is not a directory (or a parent is a file)"),
        PermissionError: ("permission_denied", "permission denied"),
    }
    for kind, (error_type, text) in kinds.items():
        if isinstance(exc, kind):
            return ToolError(error_type, f"{path}: {text}")
    return ToolError("io_error", f"{path}: {exc.strerror or exc}")


def nearest(path: Path, cwd: Path, count: int = 5) -> list[str]:
    """Existing paths near a missing `path`: in its nearest existing directory, the entries
    whose names are closest to the missing one (or the first entries, if none is close)."""
    import difflib

    missing, parent = path.name, path.parent
    while not parent.is_dir() and parent != parent.parent:
        missing, parent = parent.name, parent.parent
    try:
        with os.scandir(parent) as it:
            entries = sorted((e.name, e.is_dir()) for e in it if e.name != ".git")
    except OSError:
        return []
    names = [name for name, _ in entries]
    close = difflib.get_close_matches(missing, names, n=count, cutoff=0.5) or names[:count]
    is_dir = dict(entries)
    return [display(parent / n, cwd) + ("/" if is_dir[n] else "") for n in close]


def display(path: Path, cwd: Path) -> str:
    """`path` as the model should see it: relative to the cwd when inside it, else absolute."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return str(path)
    return "." if rel == Path() else rel.as_posix()


def sort_key(rel: str) -> str:
    """Orders paths component by component, so a directory's files stay together."""
    return rel.replace("/", "\0")


_DIR_MARK = "ps_d"
"""The group pathspec's regexes give the slash after a directory the pattern matched (one
alternative's group is renamed `ps_d1`, the next `ps_d2`, …)."""


def _own(found: re.Match[str] | None) -> bool:
    """Whether a match of a pathspec regex is of the path itself, not of a directory above."""
    return found is not None and not any(found.groupdict().values())


def _alternatives(pattern: str) -> list[str]:
    """The patterns `pattern` stands for, each `{a,b}` group expanded as ripgrep expands it."""
    depth, start, bounds = 0, 0, []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "{":
            depth += 1
            if depth == 1:
                start, bounds = i, [i]
        elif c == "," and depth == 1:
            bounds.append(i)
        elif c == "}" and depth:
            depth -= 1
            if not depth:
                head, tail = pattern[:start], pattern[i + 1 :]
                options = [
                    pattern[a + 1 : b] for a, b in zip(bounds, [*bounds[1:], i], strict=True)
                ]
                return [p for option in options for p in _alternatives(head + option + tail)]
        i += 1
    if depth:
        raise ValueError(f"unclosed '{{' in glob {pattern!r}")
    return [pattern]


def _git_line(line: str) -> str:
    """`line` as git reads it, for pathspec (which strips every trailing blank): trailing
    spaces dropped unless escaped, a trailing tab kept; and `a/**/` spelled `a/**/*/`."""
    text = line.rstrip("\r")
    kept = text.rstrip(" ")
    if kept.endswith("\\") and len(kept) < len(text):
        kept += " "  # an escaped space is kept
    elif kept[-1:].isspace():
        kept = f"{kept[:-1]}[{kept[-1]}]"  # pathspec keeps what ends in "]"
    if kept.endswith("/**/"):
        kept += "*/"  # the folders inside; pathspec 1.1 would read `a/**/` as `a/`
    return kept


@dataclass(frozen=True, slots=True)
class Glob:
    """One gitignore pattern, matched against a path relative to its base directory."""

    regex: re.Pattern[str]  # pathspec's: it matches the path, or any path under it
    ends: re.Pattern[str]  # the same, ending where the path ends
    negated: bool
    dir_only: bool
    basename: bool  # no "/" in the pattern: it matches a name at any depth

    @classmethod
    def parse(cls, line: str) -> Glob | None:
        """The pattern on one .gitignore line; `None` for blanks and comments (and, as git
        reads them, invalid ranges). A `ValueError` or `re.error` for what is no pattern.

        `{a,b}` is expanded as ripgrep expands it in globs and .gitignore files (git reads
        braces literally), so the walk and ripgrep agree.
        """
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        read = [GitIgnoreSpecPattern.pattern_to_regex(p) for p in _alternatives(_git_line(line))]
        regexes = [regex for regex, include in read if regex is not None and include is not None]
        if not regexes:
            return None
        negated = not any(include for regex, include in read if regex is not None)
        body = line.rstrip()[1:] if negated else line.rstrip()
        # A `*` that is a whole segment may match an empty one, so `src/*` matches "src/",
        # the folder itself, as permission rules ask (a folder is never written so otherwise).
        regexes = [r.replace("[^/]+", "[^/]*") for r in regexes]
        regex = "|".join(
            f"(?:{r.replace(f'(?P<{_DIR_MARK}>', f'(?P<{_DIR_MARK}{n}>') if n else r})"
            for n, r in enumerate(regexes)
        )
        with warnings.catch_warnings(action="ignore", category=FutureWarning):
            # "[[:digit:]]" reaches `re` as a set holding "[", of which it warns
            compiled, ends = re.compile(regex), re.compile(f"(?:{regex})$")
        return cls(
            compiled,
            ends,
            negated=negated,
            dir_only=body.endswith("/"),
            basename="/" not in body.rstrip("/"),
        )

    def matches(self, rel: str, is_dir: bool) -> bool:
        """Whether the pattern matches `rel` itself (not a directory above it), ignoring
        negation."""
        # The first match `regex` finds could be through a directory above although the path
        # matches itself too; the first that `ends` finds reaches the path's end.
        found = self.regex.search(rel)
        if found is not None and (_own(found) or _own(self.ends.search(rel))):
            return True
        if not is_dir:
            return False
        # a directory's own match: one whose directory mark is the slash after its path
        found = self.ends.search(rel + "/")
        return found is not None and not _own(found)


class PathGlob:
    """A user's glob over files under a search root, as ripgrep's `--glob` applies it."""

    def __init__(self, pattern: str) -> None:
        try:
            glob = Glob.parse(pattern)
        except (ValueError, re.error) as exc:
            raise ToolError("validation_error", f"invalid glob {pattern!r}: {exc}") from None
        if glob is None:
            raise ToolError("validation_error", f"invalid glob {pattern!r}")
        self.pattern = pattern
        self.glob = glob

    def accepts(self, rel: str) -> bool:
        """Whether the file at `rel` passes: it matches, or for `!pattern`, neither it nor a
        directory above it matches."""
        if not self.glob.negated:
            return self.glob.matches(rel, False)
        if self.glob.matches(rel, False):
            return False
        parts = rel.split("/")
        return not any(self.glob.matches("/".join(parts[:i]), True) for i in range(1, len(parts)))


def _ignore_file(directory: str) -> tuple[Glob, ...]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return ()
    globs = []
    for line in lines:
        try:
            glob = Glob.parse(line)
        except (ValueError, re.error):
            continue  # git skips a line it cannot read, and so does ripgrep
        if glob is not None:
            globs.append(glob)
    return tuple(globs)


@dataclass(frozen=True, slots=True)
class _DirRules:
    """The .gitignore files that decide for entries of one directory, deepest first."""

    chain: tuple[tuple[str, tuple[Glob, ...]], ...]
    in_repo: bool

    def child(self, directory: str) -> _DirRules:
        has_git = os.path.exists(os.path.join(directory, ".git"))
        own = _ignore_file(directory)
        chain: tuple[tuple[str, tuple[Glob, ...]], ...] = ((directory, own),) if own else ()
        # Lookup stops at a repository's root: .gitignore files above it are not the repo's.
        chain += () if has_git else self.chain
        return _DirRules(chain, self.in_repo or has_git)

    def ignored(self, path: str, is_dir: bool) -> bool:
        if not self.in_repo:
            return False
        for directory, globs in self.chain:
            rel = path[len(directory.rstrip("/")) + 1 :]
            for glob in reversed(globs):
                if glob.matches(rel, is_dir):
                    return not glob.negated
        return False


class Tree:
    """The files under one search root that `.gitignore` leaves visible."""

    def __init__(self, root: Path) -> None:
        self.root = os.path.realpath(root)
        rules = _DirRules((), False)
        for directory in reversed([self.root, *map(str, Path(self.root).parents)]):
            rules = rules.child(directory)
        self._rules: dict[str, _DirRules] = {"": rules}

    def _rules_for(self, rel_dir: str) -> _DirRules:
        found = self._rules.get(rel_dir)
        if found is None:
            parent = rel_dir.rpartition("/")[0]
            found = self._rules_for(parent).child(os.path.join(self.root, rel_dir))
            self._rules[rel_dir] = found
        return found

    def _skips(self, rel: str, is_dir: bool) -> bool:
        name = rel.rpartition("/")[2]
        rules = self._rules_for(rel.rpartition("/")[0])
        return name == ".git" or rules.ignored(os.path.join(self.root, rel), is_dir)

    def entries(self) -> tuple[list[tuple[str, bool]], int]:
        """The root's visible entries as sorted (name, is_dir), and how many are ignored."""
        shown: list[tuple[str, bool]] = []
        ignored = 0
        with os.scandir(self.root) as it:
            for entry in it:
                if entry.name == ".git":
                    continue
                is_dir = entry.is_dir()
                if self._skips(entry.name, is_dir):
                    ignored += 1
                else:
                    shown.append((entry.name, is_dir))
        shown.sort()
        return shown, ignored

    def files(self) -> Iterator[str]:
        """Every visible file, as paths relative to the root, in `sort_key` order."""
        yield from self._files("")

    def _files(self, rel_dir: str) -> Iterator[str]:
        try:
            with os.scandir(os.path.join(self.root, rel_dir)) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.is_dir(follow_symlinks=False):
                if not self._skips(rel, True):
                    yield from self._files(rel)
            elif entry.is_file(follow_symlinks=False) and not self._skips(rel, False):
                yield rel
