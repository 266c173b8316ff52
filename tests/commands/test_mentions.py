"""`@path` mentions: found in text, attached as text, listings or images; missing ones refused."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from auger.commands.mentions import MentionError, attach, attach_image, mentions
from auger.llm.messages import ImagePart, TextPart

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_mentions_are_words_starting_with_at() -> None:
    text = 'see @src/app.py and @"my notes.md", mail me@example.com, again @src/app.py'
    assert mentions(text) == ["src/app.py", "my notes.md"]


def test_a_text_file_is_attached_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nbuy milk\n")
    attached = attach("summarise @notes.md.", tmp_path)
    assert attached.paths == ("notes.md",)
    assert attached.parts == (TextPart('\n\n<file path="notes.md">\n# Notes\nbuy milk\n</file>'),)


def test_an_image_is_attached_as_an_image(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(PNG)
    (part,) = attach("what is in @dot.png", tmp_path).parts
    assert part == ImagePart("image/png", base64.b64encode(PNG).decode())


def test_a_directory_is_attached_as_its_listing(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("")
    (part,) = attach("look at @src/", tmp_path).parts
    assert isinstance(part, TextPart)
    assert part.text == '\n\n<directory path="src/">\nmain.py\npkg/\n</directory>'


def test_a_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MentionError, match=r"@missing\.md: no such file"):
        attach("read @missing.md", tmp_path)


def test_a_mention_that_is_no_file_name_stays_text(tmp_path: Path) -> None:
    assert attach("ask @bob to bump @types/node", tmp_path).parts == ()
    assert attach("see @nowhere/x.py", tmp_path).parts == ()  # no such folder: not a path


def test_a_missing_folder_mention_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MentionError, match=r"@src/: no such file"):
        attach("list @src/", tmp_path)


def test_a_binary_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    with pytest.raises(MentionError, match="binary file"):
        attach("@blob.bin", tmp_path)


def test_a_large_file_is_cut_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 100_000)
    (part,) = attach("@big.txt", tmp_path).parts
    assert isinstance(part, TextPart)
    assert len(part.text) < 60_000 and "read the rest with the read tool" in part.text


def test_image_flag_needs_an_image(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(PNG)
    (tmp_path / "a.txt").write_text("text")
    assert attach_image("dot.png", tmp_path).media_type == "image/png"
    with pytest.raises(MentionError, match="not a png"):
        attach_image("a.txt", tmp_path)
    with pytest.raises(MentionError, match=r"-i nope\.png"):
        attach_image("nope.png", tmp_path)
