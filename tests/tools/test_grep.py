"""The `grep` tool: ripgrep and the Python fallback agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auger.tools.base import ToolContext
from auger.tools.grep import TOOL as GREP

from .conftest import Call, make_tree

AGREEMENT = [
    {"pattern": "hello"},
    {"pattern": "hello", "glob": "*.log"},
    {"pattern": "hello", "glob": "!*.py"},
    {"pattern": "hello", "glob": "sub/**"},
    {"pattern": "hello", "glob": "*.{md,txt}"},
    {"pattern": "HELLO", "ignore_case": True, "context": 1},
    {"pattern": "print('hello')", "literal": True},
    {"pattern": "^hello", "path": "bom.txt"},
    {"pattern": "o$", "path": "bom.txt"},
    {"pattern": "hello", "path": "sub", "context": 3},
    {"pattern": "hello", "path": "bin.dat"},
    {"pattern": "hello", "path": "build"},
    {"pattern": "hello", "limit": 3},
    {"pattern": "nothing matches this"},
]


@pytest.mark.parametrize("args", AGREEMENT, ids=lambda a: ",".join(map(str, a.values())))
async def test_ripgrep_and_python_agree(
    call: Call, tree: Path, no_rg: ToolContext, args: dict[str, Any]
) -> None:
    with_rg = await call(GREP, **args)
    without = await call(GREP, no_rg, **args)
    assert with_rg == without


async def test_respects_gitignore_and_skips_git_and_binaries(call: Call, tree: Path) -> None:
    result = await call(GREP, pattern="hello")
    found = {line.split(":")[0] for line in result.content.splitlines()}
    assert {".env", ".hidden/h.py", "bom.txt", "keep.log", "sub/deeper/d.log", "sub/build"} <= found
    ignored = {"x.log", "root_only.txt", "build/out.py", "docs/gen/g.md", "docs/private/p.md"}
    assert not found & (ignored | {"sub/x.tmp", "sub/secret/s.py", "bin.dat", ".git/config"})


async def test_output_format_with_context(call: Call, tree: Path) -> None:
    result = await call(GREP, pattern="hello", path="a.py", context=1)
    assert result.content.splitlines() == [
        "a.py-1-import os",
        "a.py:2:print('hello')",
        "a.py-3-",
        "a.py-4-",
        "a.py:5:hello again",
    ]


async def test_uses_ripgrep_when_it_is_on_the_path(
    call: Call, tmp_path: Path, no_rg: ToolContext
) -> None:
    (tmp_path / "f.txt").write_text("αβγ\n")
    assert (await call(GREP, pattern=r"\p{Greek}+")).content == "f.txt:1:αβγ"
    assert (await call(GREP, no_rg, pattern=r"\p{Greek}+")).error_type == "validation_error"


@pytest.mark.parametrize("rg", [True, False])
async def test_caps_at_100_matches_and_50_kb(
    call: Call, tmp_path: Path, no_rg: ToolContext, rg: bool
) -> None:
    context = None if rg else no_rg
    make_tree(
        tmp_path, {"many.txt": "match\n" * 150, "wide.txt": ("match" + "w" * 995 + "\n") * 100}
    )
    result = await call(GREP, context, pattern="match", path="many.txt")
    body, notice = result.content.split("\n\n")
    assert len(body.splitlines()) == 100
    assert notice.startswith("[100 matches limit reached. Use limit=200 for more, or narrow")
    wide = await call(GREP, context, pattern="match", path="wide.txt")
    body, notice = wide.content.split("\n\n")
    assert len(body.encode()) <= 50 * 1024
    assert body.splitlines()[0].endswith("w… [line truncated: 500 more chars]")
    assert notice == "[Output truncated at 50.0 KB. Narrow the search with path or glob.]"


@pytest.mark.parametrize("rg", [True, False])
async def test_errors(call: Call, tree: Path, no_rg: ToolContext, rg: bool) -> None:
    context = None if rg else no_rg
    missing = await call(GREP, context, pattern="x", path="missing")
    assert missing.error_type == "not_found"
    assert (await call(GREP, context, pattern="(")).error_type == "validation_error"
    assert (await call(GREP, context, pattern="x", glob="{a")).error_type == "validation_error"
    assert (await call(GREP, context, pattern="x", limit=0)).error_type == "validation_error"
    assert (await call(GREP, context, pattern="x", context=-1)).error_type == "validation_error"


@pytest.mark.parametrize("rg", [True, False])
async def test_symlinks_are_not_followed_and_names_need_not_be_utf8(
    call: Call, tree: Path, no_rg: ToolContext, rg: bool
) -> None:
    context = None if rg else no_rg
    assert (await call(GREP, context, pattern="hello out")).content == "No matches found."
    assert (await call(GREP, context, pattern="latin-1")).content.splitlines() == [
        r"odd/caf\xe9.txt:1:hello latin-1 name",
        r"odd/d\xff/x.txt:1:hello latin-1 directory",
    ]
