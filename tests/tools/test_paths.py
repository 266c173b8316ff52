"""Globs and the .gitignore-aware walk, checked against git itself and ripgrep."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from auger.tools.paths import Glob, PathGlob, Tree, display, sort_key
from auger.tools.search import RG_ARGS

from .conftest import TREE, VENV_BIN, make_tree

# (pattern, path, is_dir, matches)
GLOBS = [
    ("*.py", "a.py", False, True),
    ("*.py", "d/e/a.py", False, True),
    ("/a.py", "a.py", False, True),
    ("/a.py", "d/a.py", False, False),
    ("d/*.py", "d/a.py", False, True),
    ("d/*.py", "x/d/a.py", False, False),
    ("d/*.py", "d/e/a.py", False, False),
    ("**/foo", "foo", False, True),
    ("**/foo", "a/b/foo", False, True),
    ("a/**/b", "a/b", False, True),
    ("a/**/b", "a/x/y/b", False, True),
    ("a/**", "a/x/y", False, True),
    ("a/**", "a", True, False),
    ("build/", "build", True, True),
    ("build/", "build", False, False),
    ("build/", "x/build", True, True),
    ("\\#x", "#x", False, True),
    ("\\!x", "!x", False, True),
    ("x\\ ", "x ", False, True),
    ("x  ", "x", False, True),
    ("[ab].c", "b.c", False, True),
    ("[!ab].c", "c.c", False, True),
    ("[!ab].c", "a.c", False, False),
    ("?.c", "ab.c", False, False),
    ("*.{js,ts}", "src/x.ts", False, True),
    ("*", "a/b", False, True),
    ("a*", "b/a/c", False, False),
    ("a.?", "a./", False, False),
]


@pytest.mark.parametrize(("pattern", "path", "is_dir", "expected"), GLOBS)
def test_glob_matches_like_gitignore(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    glob = Glob.parse(pattern)
    assert glob is not None
    assert glob.matches(path, is_dir) is expected


def test_glob_lines_that_are_not_patterns() -> None:
    assert Glob.parse("") is None
    assert Glob.parse("   ") is None
    assert Glob.parse("# comment") is None
    negated = Glob.parse("!keep.log\r")
    assert negated is not None and negated.negated and negated.matches("keep.log", False)


def test_a_negated_path_glob_excludes_whole_directories() -> None:
    assert PathGlob("!tests").accepts("src/a.py")
    assert not PathGlob("!tests").accepts("tests/a.py")
    assert not PathGlob("tests").accepts("tests/a.py")


def test_display_and_sort_key(tmp_path: Path) -> None:
    assert display(tmp_path / "a" / "b", tmp_path) == "a/b"
    assert display(tmp_path, tmp_path) == "."
    assert display(Path("/elsewhere"), tmp_path) == "/elsewhere"
    assert sorted(["a-b/x", "a/x", "a.py", "a/b/c"], key=sort_key) == [
        "a/b/c",
        "a/x",
        "a-b/x",
        "a.py",
    ]


def rg_files(root: Path) -> list[str]:
    out = subprocess.run(
        [VENV_BIN / "rg", *RG_ARGS, "--files", "--null", "--glob", "!.git"],
        cwd=root,
        capture_output=True,
        check=False,
    ).stdout
    return sorted(os.fsdecode(out).split("\0")[:-1], key=sort_key)


LAYOUTS = {
    "the fixture tree": TREE,
    # .gitignore files apply inside a repository only, and only up to its root.
    "above a repository": {
        ".gitignore": "a.py\n",
        "a.py": "",
        "repo/.git/HEAD": "",
        "repo/a.py": "",
        "repo/sub/.gitignore": "b.txt\n",
        "repo/sub/b.txt": "",
        "norepo/a.py": "",
    },
    "no repository": {".gitignore": "*\n", "a.py": "", "d/b.py": ""},
    "a .git file (worktree)": {".git": "gitdir: elsewhere\n", ".gitignore": "*.o\n", "x.o": ""},
    "directory patterns": {
        ".git/HEAD": "",
        ".gitignore": "out/\n!out/keep\ncache\n/top\nlib/**/gen\n",
        "out/keep": "",
        "src/out": "",
        "src/cache/x": "",
        "top/x": "",
        "src/top/x": "",
        "lib/a/b/gen/x": "",
        "lib/gen/y": "",
        "lib/gen.txt": "",
    },
}


@pytest.mark.parametrize("files", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_the_walk_lists_what_ripgrep_lists(tmp_path: Path, files: dict[str, str | bytes]) -> None:
    root = make_tree(tmp_path / "root", files)
    assert list(Tree(root).files()) == rg_files(root)
    for sub in {str(Path(rel).parent) for rel in files if "/" in rel and ".git" not in rel}:
        assert list(Tree(root / sub).files()) == rg_files(root / sub), sub


# Layouts where a pattern is easy to read wrongly; git, ripgrep and the walk must list the same.
TRICKY = {
    "an excluded directory keeps its files excluded": {
        ".gitignore": "build/\n!build/keep\n",
        "build/keep": "",
        "build/x": "",
        "y": "",
    },
    "contents excluded, not the directory": {
        ".gitignore": "a/**\n!a/keep\n",
        "a/keep": "",
        "a/x": "",
        "a/b/c": "",
    },
    "everything but directories and .py files": {
        ".gitignore": "*\n!*/\n!*.py\n",
        "d/x.py": "",
        "d/y.txt": "",
        "z.py": "",
    },
    "a name pattern beats a directory's negation": {
        ".gitignore": "p*\n!pub\n",
        "pub/pa.txt": "",
        "pub/x": "",
        "pz": "",
    },
    "a deeper file decides": {
        ".gitignore": "*.tmp\n",
        "a/.gitignore": "!keep.tmp\n",
        "a/b/.gitignore": "keep.tmp\n",
        "a/keep.tmp": "",
        "a/b/keep.tmp": "",
        "a/b/c/keep.tmp": "",
    },
    "anchored to the file's own directory": {
        "sub/.gitignore": "/x\n",
        "sub/x": "",
        "sub/d/x": "",
        "x": "",
    },
    "a middle slash anchors": {".gitignore": "a/b\n", "a/b": "", "c/a/b": ""},
    "** in the middle and in front": {
        ".gitignore": "a/**/z\n**/gen\n",
        "a/z": "",
        "a/b/c/z": "",
        "b/a/z": "",
        "gen/x": "",
        "p/gen/y": "",
        "p/gent": "",
    },
    "the folders inside a folder": {
        ".gitignore": "foo/**/\n",
        "foo/x": "",
        "foo/d/y": "",
        "foo/d/e/z": "",
    },
    "a directory pattern skips a file": {".gitignore": "out/\n", "out": "", "d/out/x": ""},
    "escapes, classes and trailing spaces": {
        ".gitignore": "\\#h\n\\!b\nsp\\ \nt.txt   \n[ab].c\n[!x]y.c\n?.q\n",
        "#h": "",
        "!b": "",
        "sp ": "",
        "sp": "",
        "t.txt": "",
        "a.c": "",
        "c.c": "",
        "zy.c": "",
        "xy.c": "",
        "a.q": "",
        "ab.q": "",
    },
    "a bracket expression that starts with ]": {
        ".gitignore": "[]]a\n[!]]b\n",
        "]a": "",
        "xb": "",
        "]b": "",
    },
    "one level of a directory": {".gitignore": "*/*.o\n", "a.o": "", "d/a.o": "", "d/e/a.o": ""},
    "a directory's children but one": {
        ".gitignore": "docs/*\n!docs/keep/\n",
        "docs/a": "",
        "docs/keep/b": "",
        "docs/keep/c/d": "",
    },
}


def git_repo(root: Path, files: dict[str, str | bytes]) -> dict[str, str]:
    """A new repository at `root` holding `files` untracked; the environment for git there,
    with no system, global or user excludes."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    make_tree(root, files)
    return env


def git_untracked(root: Path, env: dict[str, str]) -> list[str]:
    """The files git would offer to add: untracked and not ignored."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
        env=env,
    ).stdout
    return sorted(os.fsdecode(out).split("\0")[:-1], key=sort_key)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
@pytest.mark.parametrize("files", TRICKY.values(), ids=TRICKY.keys())
def test_the_walk_ignores_what_git_ignores(tmp_path: Path, files: dict[str, str | bytes]) -> None:
    root = tmp_path / "repo"
    env = git_repo(root, files)
    expected = git_untracked(root, env)
    assert list(Tree(root).files()) == expected
    assert rg_files(root) == expected


@needs_git
@pytest.mark.parametrize("files", TRICKY.values(), ids=TRICKY.keys())
def test_ls_hides_the_entries_git_status_calls_ignored(
    tmp_path: Path, files: dict[str, str | bytes]
) -> None:
    """`--ignored=matching` names the paths a pattern matches, a directory only when it matches
    itself (not when all it holds is ignored): what ls counts as ignored."""
    root = tmp_path / "repo"
    env = git_repo(root, files)
    status = subprocess.run(
        ["git", "-C", str(root), "status", "-z", "--ignored=matching", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split("\0")
    excluded = {e[3:] for e in status if e.startswith("!! ") and "/" not in e[3:].rstrip("/")}
    names = {p.name + "/" * p.is_dir() for p in root.iterdir() if p.name != ".git"}
    shown, ignored = Tree(root).entries()
    assert [name + "/" * is_dir for name, is_dir in shown] == sorted(names - excluded)
    assert ignored == len(excluded)
