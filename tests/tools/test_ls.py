"""The `ls` tool."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from auger.tools.base import ToolContext
from auger.tools.ls import TOOL as LS
from auger.tools.search import RG_ARGS

from .conftest import VENV_BIN, Call, make_tree


async def test_lists_sorted_with_dirs_marked_and_ignored_counted(call: Call, tree: Path) -> None:
    result = await call(LS, path="sub")
    assert result.content == (
        ".gitignore\nbuild\ndeeper/\nimportant.tmp\nroot_only.txt\n\n"
        "[2 entries ignored by .gitignore]"
    )


@pytest.mark.parametrize("path", [".", "sub", "docs", "docs/private", "sub/deeper", "deep/a"])
async def test_agrees_with_ripgrep_on_which_files_are_visible(
    call: Call, tree: Path, no_rg: ToolContext, path: str
) -> None:
    """ls reads one directory, which ripgrep cannot list (it has no way to print
    directories), so it always walks in Python; ripgrep checks which files it shows."""
    result = await call(LS, path=path)
    assert result == await call(LS, no_rg, path=path)
    listed = result.content.split("\n\n")[0].splitlines()
    rg = subprocess.run(
        [VENV_BIN / "rg", *RG_ARGS, "--files", "--glob", "!.git", "--max-depth", "1"],
        cwd=tree / path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert sorted(rg.stdout.splitlines()) == [name for name in listed if not name.endswith("/")]


async def test_caps_at_500_entries(call: Call, tmp_path: Path) -> None:
    make_tree(tmp_path, {f"{n:03}.txt": "" for n in range(501)})
    result = await call(LS)
    body, notice = result.content.split("\n\n")
    assert len(body.splitlines()) == 500
    assert (
        notice
        == "[500 entries limit reached. Use limit=1000 for more, or use find to narrow it down.]"
    )


async def test_empty_and_errors(call: Call, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "f.txt").write_text("")
    assert (await call(LS, path="empty")).content == "(empty directory)"
    assert (await call(LS, path="missing")).error_type == "not_found"
    assert (await call(LS, path="f.txt")).error_type == "not_a_directory"
    assert (await call(LS, limit=0)).error_type == "validation_error"
