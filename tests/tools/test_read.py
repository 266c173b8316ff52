"""The `read` tool."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from auger.tools.base import ToolContext
from auger.tools.read import TOOL as READ
from auger.tools.read import image_type

from .conftest import Call

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24


async def test_numbers_lines_like_cat_n(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("alpha\n\tbeta\n")
    result = await call(READ, path="f.txt")
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\t\tbeta"


async def test_offset_and_limit_page_with_a_notice(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = await call(READ, path="f.txt", offset=3, limit=2)
    assert result.content.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "[Showing lines 3-4 of 10. Use offset=5 to continue.]" in result.content
    last = await call(READ, path="f.txt", offset=9)
    assert last.content == "     9\tline 9\n    10\tline 10"


async def test_stops_at_2000_lines(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n" * 2500)
    result = await call(READ, path="f.txt")
    body, notice = result.content.split("\n\n")
    assert len(body.splitlines()) == 2000
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"


async def test_stops_at_50_kb(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(("y" * 999 + "\n") * 100)
    result = await call(READ, path="f.txt")
    body, notice = result.content.split("\n\n")
    assert len(body.encode()) <= 50 * 1024
    shown = len(body.splitlines())
    assert shown == 50
    assert notice == f"[Showing lines 1-{shown} of 100 (50.0 KB limit). Use offset=51 to continue.]"


async def test_cuts_long_lines_with_a_marker(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("z" * 2500 + "\nshort\n")
    result = await call(READ, path="f.txt")
    first, second = result.content.splitlines()
    assert first == "     1\t" + "z" * 2000 + "… [line truncated: 500 more chars]"
    assert second == "     2\tshort"


async def test_crlf_and_bom_are_not_shown(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert (await call(READ, path="f.txt")).content == "     1\tone\n     2\ttwo"


async def test_empty_file(call: Call, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("")
    assert (await call(READ, path="f.txt")).content == "[f.txt is empty]"


async def test_errors(call: Call, tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "f.txt").write_text("one\n")
    (tmp_path / "blob").write_bytes(b"ab\0cd")
    os.mkfifo(tmp_path / "pipe")
    cases = {
        "not_found": {"path": "missing.txt"},
        "is_directory": {"path": "dir"},
        "binary_file": {"path": "blob"},
        "not_a_file": {"path": "pipe"},
    }
    for error_type, args in cases.items():
        result = await call(READ, **args)
        assert result.error_type == error_type, result
    past = await call(READ, path="f.txt", offset=5)
    assert past.error_type == "validation_error"
    assert "past the end" in past.content
    assert (await call(READ, path="f.txt", limit=0)).error_type == "validation_error"
    assert (await call(READ, path=3)).error_type == "validation_error"


async def test_images_come_back_as_images(call: Call, tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(PNG)
    result = await call(READ, path="pic.png")
    assert not result.is_error
    [image] = result.images
    assert image.media_type == "image/png"
    assert base64.b64decode(image.data) == PNG


async def test_images_without_image_support_get_a_note(
    call: Call, ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "pic.png").write_bytes(PNG)
    blind = ToolContext(cwd=ctx.cwd, env=ctx.env, supports_images=False)
    result = await call(READ, blind, path="pic.png")
    assert not result.is_error
    assert not result.images
    assert "image/png" in result.content
    assert "can't see it" in result.content


def test_image_types() -> None:
    assert image_type(PNG) == "image/png"
    assert image_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert image_type(b"GIF89a") == "image/gif"
    assert image_type(b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert image_type(b"plain text") is None
