"""The `read` tool: a file's text with line numbers, a page at a time, or an image."""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from auger.llm.messages import ImagePart
from auger.tools.base import ToolContext, ToolError, ToolResponse, tool
from auger.tools.files import BLOCK, Lines, Stamp, is_binary, open_regular, read_whole
from auger.tools.paths import display, os_error
from auger.tools.truncate import MAX_BYTES, MAX_LINE_CHARS, MAX_LINES, format_size, head

IMAGE_TYPES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # what the model APIs accept per image


def image_type(data: bytes) -> str | None:
    """The media type of a png, jpeg, gif or webp image, from its first bytes."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((t for magic, t in IMAGE_TYPES.items() if data.startswith(magic)), None)


async def read(
    path: str, offset: int | None = None, limit: int | None = None, *, ctx: ToolContext
) -> ToolResponse | str:
    """Read a file: numbered lines, at most 2,000 lines or 50 KB a call (then page on with
    offset and limit); png, jpg, gif and webp files come back as images.

    Args:
        offset: First line, from 1.
        limit: Most lines.
    """
    if (offset or 0) < 0 or (limit is not None and limit < 1):
        raise ToolError("validation_error", "offset is a line number (from 1) and limit at least 1")
    target = ctx.resolve(path)
    shown = display(target, ctx.cwd)
    ctx.check_readable(target, shown)
    with open_regular(target, shown) as file:
        stamp = Stamp.of(os.fstat(file.fileno()))
        first = _read(file, shown, BLOCK)
        media_type = image_type(first[:16])
        if media_type is not None:
            if not ctx.supports_images:
                size = format_size(stamp.size)
                return f"{shown} is an image ({media_type}, {size}); this model can't see it."
            data = first + read_whole(file, shown, MAX_IMAGE_BYTES - len(first))
            response: ToolResponse | str = _image(shown, data, media_type)
        elif is_binary(first):
            raise ToolError("binary_file", f"{shown} is a binary file ({format_size(stamp.size)})")
        else:
            response = _page(shown, Lines(file, MAX_LINE_CHARS, first), offset, limit)
    if ctx.files is not None:
        ctx.files.saw(target, stamp)
    return response


def _read(file: BinaryIO, shown: str, size: int) -> bytes:
    try:
        return file.read(size)
    except OSError as exc:
        raise os_error(exc, shown) from None


def _image(shown: str, data: bytes, media_type: str) -> ToolResponse:
    import base64

    part = ImagePart(media_type, base64.b64encode(data).decode("ascii"))
    size = format_size(len(data))
    return ToolResponse(f"Read image {shown} ({media_type}, {size})", images=(part,))


def _page(shown: str, lines: Lines, offset: int | None, limit: int | None) -> str:
    start = max(offset or 1, 1)
    stop = start - 1 + min(limit or MAX_LINES, MAX_LINES)
    rows: list[str] = []
    total = 0
    for text, more in lines:
        total += 1
        if total == 1:
            text = text.removeprefix("\ufeff")
        if total >= start:
            text = text.removesuffix("\r") if not more else text
            rows.append(text if not more else f"{text}… [line truncated: {more} more chars]")
            if total == stop:
                break
    total += lines.count_rest()
    if total == 0:
        return f"[{shown} is empty]"
    if start > total:
        raise ToolError(
            "validation_error", f"offset {start} is past the end of {shown} ({total} lines)"
        )
    numbered = "\n".join(f"{n:>6}\t{row}" for n, row in enumerate(rows, start))
    cut = head(numbered, MAX_LINES, MAX_BYTES)
    last = start - 1 + cut.kept_lines
    if last >= total:
        return cut.text
    size = f" ({format_size(MAX_BYTES)} limit)" if cut.truncated else ""
    return (
        f"{cut.text}\n\n[Showing lines {start}-{last} of {total}{size}. "
        f"Use offset={last + 1} to continue.]"
    )


TOOL = tool(read)


def extension(g: Any) -> None:
    """Registers `read`."""
    g.tool(TOOL)
