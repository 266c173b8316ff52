"""The `find` tool: ripgrep and the Python fallback agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.tools.base import ToolContext
from auger.tools.find import TOOL as FIND

from .conftest import Call, make_tree

PATTERNS = ["*.py", "**/*.py", "*.log", "*.tmp", "*", "**", "sub/*", "sub/**", "*.{py,md}"]
PATTERNS += ["build", "build/**", "a/*", "!*.py", "deep/**/d.py", "[ab].py", "?.py", "*.nothing"]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("path", [None, "sub", "docs"])
async def test_ripgrep_and_python_agree(
    call: Call, tree: Path, no_rg: ToolContext, pattern: str, path: str | None
) -> None:
    with_rg = await call(FIND, pattern=pattern, path=path)
    assert with_rg == await call(FIND, no_rg, pattern=pattern, path=path)


async def test_sorted_gitignore_aware_and_hidden_included(call: Call, tree: Path) -> None:
    result = await call(FIND, pattern="*.py")
    assert result.content.splitlines() == [
        ".hidden/h.py",
        "a/x.py",
        "a-b/x.py",
        "a.py",
        "deep/a/b/c/d.py",
        "space name.py",
    ]
    # A glob matching ignored files does not bring them back.
    assert (await call(FIND, pattern="*.log")).content == "keep.log\nsub/deeper/d.log"
    assert (await call(FIND, pattern="*.tmp", path="sub")).content == "sub/important.tmp"


@pytest.mark.parametrize("rg", [True, False])
async def test_caps_at_1000_paths_and_50_kb(
    call: Call, tmp_path: Path, no_rg: ToolContext, rg: bool
) -> None:
    context = None if rg else no_rg
    make_tree(tmp_path, {f"d/{n:04}.txt": "" for n in range(1001)})
    result = await call(FIND, context, pattern="*.txt")
    body, notice = result.content.split("\n\n")
    assert body.splitlines()[-1] == "d/0999.txt"
    assert (
        notice
        == "[1000 paths limit reached. Use limit=2000 for more, or narrow the pattern or the path.]"
    )
    deep = f"e/{'x' * 200}/{'y' * 200}"
    make_tree(tmp_path, {f"{deep}/{n:03}.txt": "" for n in range(130)})
    long = await call(FIND, context, pattern="e/**")
    body, notice = long.content.split("\n\n")
    assert len(body.encode()) <= 50 * 1024
    assert notice == "[Output truncated at 50.0 KB. Narrow the pattern or the path.]"


@pytest.mark.parametrize("rg", [True, False])
async def test_errors(call: Call, tree: Path, no_rg: ToolContext, rg: bool) -> None:
    context = None if rg else no_rg
    assert (await call(FIND, context, pattern="*", path="missing")).error_type == "not_found"
    assert (await call(FIND, context, pattern="*", path="a.py")).error_type == "not_a_directory"
    assert (await call(FIND, context, pattern="{a")).error_type == "validation_error"
    assert (await call(FIND, context, pattern="*", limit=0)).error_type == "validation_error"
    assert (await call(FIND, context, pattern="*.nothing")).content == "No files found."


@pytest.mark.parametrize("rg", [True, False])
async def test_symlinks_are_skipped_and_names_need_not_be_utf8(
    call: Call, tree: Path, no_rg: ToolContext, rg: bool
) -> None:
    listed = (await call(FIND, None if rg else no_rg, pattern="*")).content.splitlines()
    assert [p for p in listed if p.startswith("links/")] == []
    assert [p for p in listed if p.startswith("odd/")] == [
        "odd/.gitignore",
        r"odd/caf\xe9.txt",
        r"odd/d\xff/x.txt",
    ]
