"""The `write` tool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from auger.tools.write import TOOL as WRITE

from .conftest import Call


async def test_creates_parents_and_reports_bytes(call: Call, tmp_path: Path) -> None:
    result = await call(WRITE, path="a/b/c.txt", content="héllo\n")
    assert not result.is_error
    assert result.content == "Wrote 7 bytes to a/b/c.txt"
    assert (tmp_path / "a/b/c.txt").read_bytes() == "héllo\n".encode()


async def test_overwrites_keeping_mode_and_leaving_no_temp_file(call: Call, tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    await call(WRITE, path=str(target), content="new\r\n")
    assert target.read_bytes() == b"new\r\n"
    assert target.stat().st_mode & 0o777 == 0o751
    assert os.listdir(tmp_path) == ["run.sh"]


async def test_writes_through_a_symlink(call: Call, tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to("real.txt")
    await call(WRITE, path="link.txt", content="new")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


async def test_a_failed_write_leaves_the_old_file_whole(
    call: Call, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("old")

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    result = await call(WRITE, path="f.txt", content="new")
    assert result.error_type == "io_error"
    assert "No space left" in result.content
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["f.txt"]


async def test_errors(call: Call, tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("")
    assert (await call(WRITE, path="dir", content="x")).error_type == "is_directory"
    assert (await call(WRITE, path="file/x.txt", content="x")).error_type == "not_a_directory"
    assert (await call(WRITE, path="file/y/x.txt", content="x")).error_type == "not_a_directory"
    assert (await call(WRITE, path="x.txt")).error_type == "validation_error"
