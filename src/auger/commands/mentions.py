"""`@path` in a prompt: the file's content (an image as an image) attached to the message."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import msgspec

from auger.config.errors import ConfigError
from auger.llm.messages import ImagePart, TextPart, UserPart
from auger.tools.files import is_binary
from auger.tools.paths import display
from auger.tools.read import MAX_IMAGE_BYTES, image_type
from auger.tools.truncate import MAX_BYTES, clip_bytes, format_size

# `@` at the start or after whitespace, then a quoted path or one without spaces
_MENTION = re.compile(r'(?:(?<=\s)|^)@(?:"([^"]+)"|([^\s"]+))')
_TRAILING = ".,;:!?)]}'"
MAX_ENTRIES = 200  # entries of a mentioned directory listed at most


class MentionError(ConfigError):
    """A mentioned file that cannot be attached (missing, unreadable, too large)."""


class Attached(msgspec.Struct, frozen=True):
    """A prompt's attachments, and the paths (as written) they came from."""

    parts: tuple[UserPart, ...]
    paths: tuple[str, ...]


def mentions(text: str) -> list[str]:
    """The `@paths` written in `text`, in order, without repeats (`a@b.c` is no mention)."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        path = match.group(1) or match.group(2)
        if path not in found:
            found.append(path)
    return found


_FILE_NAME = re.compile(r"[^/]*\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,10}$")


def _looks_like_path(word: str, cwd: Path) -> bool:
    """Whether a mention that names nothing was meant as a file: a name with an extension, or
    a folder ending in `/`, in a folder that exists (`@types/node` or `@bob` is just text)."""
    if not (word.endswith("/") or _FILE_NAME.search(word)):
        return False
    return (cwd / Path(word.rstrip("/")).expanduser()).parent.is_dir()


def _resolve(word: str, cwd: Path) -> tuple[Path, str] | None:
    """The file a mention names; trailing punctuation (`see @a.py.`) is tried without."""
    for candidate in (word, word.rstrip(_TRAILING)):
        path = (cwd / Path(candidate).expanduser()).resolve()
        if candidate and path.exists():
            return path, candidate
    return None


def attach(text: str, cwd: Path, *, images: bool = True) -> Attached:
    """The attachments for every `@path` of `text` that names a file or directory.

    A mention that looks like a file (`@notes.md`, `@src/`, see `_looks_like_path`) but names
    nothing raises `MentionError`; any other that names nothing (`@bob`, `@types/node`) is
    left as text.
    """
    parts: list[UserPart] = []
    paths: list[str] = []
    for word in mentions(text):
        found = _resolve(word, cwd)
        if found is None:
            if _looks_like_path(word.rstrip(_TRAILING), cwd):
                raise MentionError(f"@{word}: no such file or directory")
            continue
        path, written = found
        parts.append(attach_path(path, cwd, images=images))
        paths.append(written)
    return Attached(tuple(parts), tuple(paths))


def attach_path(path: Path, cwd: Path, *, images: bool = True) -> UserPart:
    """One file (its text, or the image), or a directory (its listing), as a message part.

    Text parts start with a blank line: formats that join a message's text keep them apart."""
    shown = display(path, cwd)
    if path.is_dir():
        return TextPart(_listing(path, shown))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MentionError(f"@{shown}: {exc.strerror or exc}") from None
    media_type = image_type(data[:16])
    if media_type is not None:
        if not images:
            return TextPart(f"\n\n[{shown} is an image ({media_type}); this model can't see it]")
        return image_part(data, media_type, shown)
    if is_binary(data):
        raise MentionError(f"@{shown} is a binary file ({format_size(len(data))})")
    content = data.decode(errors="replace")
    if len(data) > MAX_BYTES:
        content = clip_bytes(content, MAX_BYTES) + (
            f"\n[cut at {format_size(MAX_BYTES)} of {format_size(len(data))}: "
            "read the rest with the read tool]"
        )
    return TextPart(f'\n\n<file path="{shown}">\n{content.rstrip(chr(10))}\n</file>')


def attach_image(raw: str, cwd: Path) -> ImagePart:
    """`-i FILE`: the image at `raw`; anything else is a `MentionError`."""
    path = (cwd / Path(raw).expanduser()).resolve()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MentionError(f"-i {raw}: {exc.strerror or exc}") from None
    media_type = image_type(data[:16])
    if media_type is None:
        raise MentionError(f"-i {raw}: not a png, jpeg, gif or webp image")
    return image_part(data, media_type, raw)


def image_part(data: bytes, media_type: str, shown: str) -> ImagePart:
    """An image as a message part, refused over the 5 MB the model APIs accept."""
    if len(data) > MAX_IMAGE_BYTES:
        raise MentionError(f"{shown} is an image of {format_size(len(data))}; the limit is 5 MB")
    return ImagePart(media_type, base64.b64encode(data).decode("ascii"))


def _listing(path: Path, shown: str) -> str:
    from auger.tools.paths import Tree

    entries, ignored = Tree(path).entries()
    rows = [name + ("/" if is_dir else "") for name, is_dir in entries[:MAX_ENTRIES]]
    more = len(entries) - len(rows)
    if more > 0:
        rows.append(f"[{more} more entries]")
    if ignored:
        rows.append(f"[{ignored} ignored by .gitignore]")
    body = "\n".join(rows) or "[empty]"
    return f'\n\n<directory path="{shown.rstrip("/")}/">\n{body}\n</directory>'
