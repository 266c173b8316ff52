"""The loader's view of the project: which `sys.path` folders may hold installed packages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from auger.config.project import project_root
from auger.loader import install_paths


def test_the_project_is_never_an_install_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    cwd = root / "pkg" / "sub"
    venv = root / ".venv" / "lib" / "site-packages"
    for folder in (cwd, venv, root / ".git", root / "src"):
        folder.mkdir(parents=True)
    (tmp_path / "link").symlink_to(cwd)
    entries = ["", ".", "relative", str(cwd), str(root / "pkg"), str(root), str(tmp_path / "link")]
    kept = [str(venv), str(root / "src"), str(tmp_path), "/usr/lib/python3/dist-packages"]
    monkeypatch.setattr(sys, "path", entries + kept)
    assert project_root(cwd) == root
    assert install_paths(cwd) == kept
