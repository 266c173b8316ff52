"""One project root for everything project-scoped: the git root, else the nearest folder with a
project's `.auger/`, else the working directory."""

from __future__ import annotations

from pathlib import Path

from auger.config.project import project_root


def test_a_subfolder_of_a_repository_belongs_to_the_git_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "sub" / ".auger").mkdir(parents=True)  # a `.auger` inside the repo changes nothing
    assert project_root(root / "sub" / ".auger") == root


def test_without_git_the_nearest_auger_folder_marks_the_project(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".auger").mkdir(parents=True)
    (tmp_path / "proj" / "a" / "b").mkdir(parents=True)
    assert project_root(tmp_path / "proj" / "a" / "b") == tmp_path / "proj"


def test_auger_home_marks_no_project(tmp_path: Path) -> None:
    home = tmp_path / "user" / ".auger"
    home.mkdir(parents=True)
    (tmp_path / "user" / "work").mkdir()
    cwd = tmp_path / "user" / "work"
    assert project_root(cwd, home) == cwd


def test_a_folder_of_no_project_is_its_own_root(tmp_path: Path) -> None:
    assert project_root(tmp_path) == tmp_path.resolve()
