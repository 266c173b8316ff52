"""The `@` completion finder: fuzzy ranking, and the project's files as git sees them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from auger.commands.file_finder import find_files, project_files, rank, score


def test_every_query_character_must_appear_in_order() -> None:
    assert score("abc", "a/b/c.py") is not None
    assert score("cba", "a/b/c.py") is None


def test_file_name_and_segment_starts_rank_first() -> None:
    paths = ["docs/reading.md", "src/auger/tools/read.py", "tests/tools/test_read.py", "LICENSE"]
    assert rank("read", paths)[:2] == ["src/auger/tools/read.py", "tests/tools/test_read.py"]
    assert rank("tread", paths)[0] == "tests/tools/test_read.py"


def test_initials_of_a_path_find_it() -> None:
    paths = ["src/auger/hosts/headless.py", "src/auger/hosts/rpc.py", "src/auger/llm/http.py"]
    assert rank("ahh", paths)[0] == "src/auger/hosts/headless.py"


def test_an_empty_query_lists_short_paths_first() -> None:
    assert rank("", ["a/b/c", "a", "a/b"], limit=2) == ["a", "a/b"]


def test_without_the_git_program_the_gitignore_is_obeyed(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    found = project_files(tmp_path, git=str(tmp_path / "no-git"))
    assert found == ["src/", ".gitignore", "src/main.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_a_repository_git_decides(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.txt\n")
    (tmp_path / "secret.txt").write_text("")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "parser.py").write_text("")
    (tmp_path / "lib" / "printer.py").write_text("")
    assert "secret.txt" not in project_files(tmp_path)  # only git knows this exclusion
    assert find_files("@lpars", tmp_path) == ["lib/parser.py"]
