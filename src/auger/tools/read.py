"""The `read` tool: a file's text with line numbers, a page at a time, or an image."""

from __future__ import annotations

from typing import Any

from auger.llm.messages import ImagePart
from auger.tools.base import ToolContext, ToolError, ToolResponse, tool
from auger.tools.paths import display, is_binary, read_file
from auger.tools.truncate import MAX_BYTES, MAX_LINES, clip_line, format_size, head

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
    target = ctx.resolve(path)
    shown = display(target, ctx.cwd)
    data = read_file(target, shown)
    media_type = image_type(data[:16])
    if media_type is not None:
        return _image(shown, data, media_type, ctx.supports_images)
    if is_binary(data):
        raise ToolError("binary_file", f"{shown} is a binary file ({format_size(len(data))})")
    return _page(shown, data.decode(errors="replace"), offset, limit)


def _image(shown: str, data: bytes, media_type: str, supported: bool) -> ToolResponse:
    size = format_size(len(data))
    if not supported:
        return ToolResponse(f"{shown} is an image ({media_type}, {size}); this model can't see it.")
    if len(data) > MAX_IMAGE_BYTES:
        raise ToolError("too_large", f"{shown} is an image of {size}; the limit is 5 MB")
    import base64

    part = ImagePart(media_type, base64.b64encode(data).decode("ascii"))
    return ToolResponse(f"Read image {shown} ({media_type}, {size})", images=(part,))


def _page(shown: str, text: str, offset: int | None, limit: int | None) -> str:
    if (offset or 0) < 0 or (limit is not None and limit < 1):
        raise ToolError("validation_error", "offset is a line number (from 1) and limit at least 1")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    if total == 0:
        return f"[{shown} is empty]"
    start = max(offset or 1, 1)
    if start > total:
        raise ToolError(
            "validation_error", f"offset {start} is past the end of {shown} ({total} lines)"
        )
    stop = min(total, start - 1 + min(limit or MAX_LINES, MAX_LINES))
    rows = (clip_line(line.removesuffix("\r")) for line in lines[start - 1 : stop])
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
