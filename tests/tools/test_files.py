"""Files the tools touch: read-only files, hard links, FIFOs and devices, files changed behind
the model's back, and huge files shown a few lines at a time."""

from __future__ import annotations

import os
import stat
import tracemalloc
from pathlib import Path

import pytest

from auger.tools.base import ToolContext
from auger.tools.edit import TOOL as EDIT
from auger.tools.files import FileReads, Stamp, write_file
from auger.tools.grep import TOOL as GREP
from auger.tools.read import TOOL as READ
from auger.tools.write import TOOL as WRITE

from .conftest import Call

BIG_LINES = 400_000  # about 20 MB


@pytest.fixture
def seen(ctx: ToolContext) -> ToolContext:
    """`ctx` remembering what the model read, as a Runtime's does."""
    return ToolContext(cwd=ctx.cwd, env=ctx.env, jobs=ctx.jobs, files=FileReads())


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    with path.open("w") as f:
        f.writelines(f"line {n} {'x' * 40}\n" for n in range(1, BIG_LINES + 1))
    return path


def peak_bytes(run: object) -> int:
    import asyncio

    tracemalloc.start()
    try:
        asyncio.run(run)  # type: ignore[arg-type]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def test_write_and_edit_refuse_a_read_only_file(call: Call, tmp_path: Path) -> None:
    target = tmp_path / "ro.txt"
    target.write_text("keep me\n")
    target.chmod(0o444)
    written = await call(WRITE, path="ro.txt", content="gone")
    edited = await call(EDIT, path="ro.txt", old_string="keep", new_string="lose")
    assert (written.error_type, written.content) == ("permission_denied", "ro.txt is read-only")
    assert edited.error_type == "permission_denied"
    assert target.read_text() == "keep me\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


async def test_write_and_edit_keep_hard_links_and_the_mode(call: Call, tmp_path: Path) -> None:
    target, other = tmp_path / "a.txt", tmp_path / "b.txt"
    target.write_text("one\n")
    target.chmod(0o640)
    os.link(target, other)
    await call(WRITE, path="a.txt", content="two\n")
    assert other.read_text() == "two\n"
    await call(EDIT, path="b.txt", old_string="two", new_string="three")
    assert target.read_text() == "three\n"
    assert target.stat().st_nlink == 2
    assert target.stat().st_ino == other.stat().st_ino
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("tool", [READ, WRITE, EDIT], ids=["read", "write", "edit"])
async def test_a_fifo_is_refused_without_blocking(call: Call, tmp_path: Path, tool: object) -> None:
    os.mkfifo(tmp_path / "pipe")
    args = {"read": {}, "write": {"content": "x"}, "edit": {"old_string": "a", "new_string": "b"}}
    result = await call(tool, path="pipe", **args[tool.name])  # type: ignore[attr-defined]
    assert (result.error_type, result.content) == ("not_a_file", "pipe is not a regular file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
async def test_devices_are_refused(call: Call, device: str) -> None:
    assert (await call(READ, path=device)).error_type == "not_a_file"
    assert (await call(WRITE, path=device, content="x")).error_type == "not_a_file"
    edited = await call(EDIT, path=device, old_string="a", new_string="b")
    assert edited.error_type == "not_a_file"


async def test_write_refuses_a_file_changed_since_it_was_read(
    call: Call, seen: ToolContext, tmp_path: Path
) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("v1\n")
    await call(READ, seen, path="notes.txt")
    target.write_text("v2 from the user\n")
    refused = await call(WRITE, seen, path="notes.txt", content="model's v2\n")
    assert refused.error_type == "file_changed"
    assert refused.content == (
        "notes.txt changed since you last read it; read it again before changing it"
    )
    assert target.read_text() == "v2 from the user\n"
    await call(READ, seen, path="notes.txt")
    assert not (await call(WRITE, seen, path="notes.txt", content="v3\n")).is_error
    # What the model wrote itself it knows: the next edit goes through.
    edited = await call(EDIT, seen, path="notes.txt", old_string="v3", new_string="v4")
    assert not edited.is_error
    assert target.read_text() == "v4\n"


async def test_edit_refuses_a_file_changed_since_it_was_read(
    call: Call, seen: ToolContext, tmp_path: Path
) -> None:
    target = tmp_path / "code.py"
    target.write_text("x = 1\n")
    await call(READ, seen, path="code.py")
    target.write_text("x = 1\ny = 2\n")
    refused = await call(EDIT, seen, path="code.py", old_string="x = 1", new_string="x = 3")
    assert refused.error_type == "file_changed"
    assert target.read_text() == "x = 1\ny = 2\n"


def test_a_change_while_an_edit_is_made_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("before\n")
    started = Stamp.of(target.stat())
    target.write_text("someone else's\n")
    with pytest.raises(Exception, match="changed while it was being edited") as info:
        write_file(target, b"edited\n", "f.txt", expected=started)
    assert info.value.error_type == "file_changed"  # type: ignore[attr-defined]
    assert target.read_text() == "someone else's\n"


@pytest.mark.slow
def test_read_shows_a_page_of_a_huge_file_without_loading_it(big: Path, ctx: ToolContext) -> None:
    result: list[str] = []

    async def run() -> None:
        result.append(await READ.run({"path": "big.txt", "offset": 5, "limit": 3}, ctx))  # type: ignore[arg-type]

    peak = peak_bytes(run())
    assert result[0].splitlines()[:3] == [f"     {n}\tline {n} {'x' * 40}" for n in (5, 6, 7)]
    assert f"of {BIG_LINES}." in result[0]
    assert peak < 2_000_000, peak  # the file is about 20 MB


@pytest.mark.slow
@pytest.mark.parametrize("with_rg", [True, False], ids=["ripgrep", "python"])
def test_grep_shows_context_of_a_huge_file_without_loading_it(
    big: Path, ctx: ToolContext, no_rg: ToolContext, with_rg: bool
) -> None:
    result: list[str] = []
    context = ctx if with_rg else no_rg

    async def run() -> None:
        args = {"pattern": "^line 3 ", "path": "big.txt", "context": 1, "limit": 1}
        result.append(await GREP.run(args, context))  # type: ignore[arg-type]

    peak = peak_bytes(run())
    assert result[0].splitlines()[:3] == [
        f"big.txt-2-line 2 {'x' * 40}",
        f"big.txt:3:line 3 {'x' * 40}",
        f"big.txt-4-line 4 {'x' * 40}",
    ]
    assert peak < 2_000_000, peak


async def test_binary_is_told_from_the_first_block(call: Call, tmp_path: Path) -> None:
    target = tmp_path / "disk.img"
    with target.open("wb") as f:
        f.write(b"text at the start\n")
        f.truncate(4 * 1024**3)  # a sparse 4 GB file: NULs after the first line
    read = await call(READ, path="disk.img")
    assert (read.error_type, read.content) == (
        "binary_file",
        "disk.img is a binary file (4096.0 MB)",
    )
    edited = await call(EDIT, path="disk.img", old_string="text", new_string="t")
    assert edited.error_type == "too_large"
    assert "use bash" in edited.content


@pytest.mark.slow
def test_grep_on_a_huge_single_line_reads_a_bounded_part_of_it(
    tmp_path: Path, ctx: ToolContext
) -> None:
    (tmp_path / "one.txt").write_text("match" + "y" * 100_000_000 + "\n")  # one 100 MB line
    result: list[str] = []

    async def run() -> None:
        result.append(await GREP.run({"pattern": "match", "path": "one.txt"}, ctx))  # type: ignore[arg-type]

    peak = peak_bytes(run())
    assert result[0].startswith("one.txt:1:match" + "y" * 495 + "… [line truncated: ")
    assert peak < 50_000_000, peak  # main: 300 MB
