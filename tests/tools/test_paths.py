"""Globs and the .gitignore-aware walk, checked against git's rules and ripgrep."""

from __future__ import annotations

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
        [VENV_BIN / "rg", *RG_ARGS, "--files", "--glob", "!.git"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return sorted(out.splitlines(), key=sort_key)


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


def test_excluded_checks_every_directory_above(tmp_path: Path) -> None:
    tree = Tree(make_tree(tmp_path, TREE))
    assert tree.excluded("build/out.py")
    assert tree.excluded("sub/secret/s.py")
    assert tree.excluded(".git/config")
    assert tree.excluded("x.log")
    assert not tree.excluded("sub/deeper/d.log")
    assert not tree.excluded("sub/build")
