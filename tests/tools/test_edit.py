"""The `edit` tool."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from auger.tools.edit import TOOL as EDIT
from auger.tools.edit import unified_diff

from .conftest import Call


def file(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "f.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, newline="")
    return path


async def test_replaces_and_returns_a_diff(call: Call, tmp_path: Path) -> None:
    path = file(tmp_path, "one\ntwo\nthree\n")
    result = await call(EDIT, path="f.txt", old_string="two", new_string="2")
    assert not result.is_error
    assert path.read_text() == "one\n2\nthree\n"
    assert result.content.splitlines() == [
        "Edited f.txt: 1 replacement",
        "",
        "--- f.txt",
        "+++ f.txt",
        "@@ -1,3 +1,3 @@",
        " one",
        "-two",
        "+2",
        " three",
    ]


async def test_edits_apply_to_the_original_all_or_nothing(call: Call, tmp_path: Path) -> None:
    path = file(tmp_path, "a b c\n")
    edits = [{"old_string": "a", "new_string": "c"}, {"old_string": "c", "new_string": "a"}]
    result = await call(EDIT, path="f.txt", edits=edits)
    assert result.content.startswith("Edited f.txt: 2 replacements")
    assert path.read_text() == "c b a\n"
    edits = [{"old_string": "c", "new_string": "x"}, {"old_string": "missing", "new_string": "y"}]
    failed = await call(EDIT, path="f.txt", edits=edits)
    assert failed.error_type == "not_found"
    assert failed.content.startswith("edit 2: ")
    assert path.read_text() == "c b a\n"


async def test_ambiguous_gives_the_count_and_replace_all_takes_them_all(
    call: Call, tmp_path: Path
) -> None:
    path = file(tmp_path, "x = 1\nx = 1\nx = 1\n")
    result = await call(EDIT, path="f.txt", old_string="x = 1", new_string="x = 2")
    assert result.error_type == "ambiguous"
    assert "matches 3 places" in result.content
    result = await call(
        EDIT, path="f.txt", old_string="x = 1", new_string="x = 2", replace_all=True
    )
    assert result.content.startswith("Edited f.txt: 3 replacements")
    assert path.read_text() == "x = 2\n" * 3


async def test_overlapping_edits(call: Call, tmp_path: Path) -> None:
    path = file(tmp_path, "abcdef\n")
    edits = [{"old_string": "abcd", "new_string": "1"}, {"old_string": "cdef", "new_string": "2"}]
    result = await call(EDIT, path="f.txt", edits=edits)
    assert result.error_type == "overlapping_edits"
    assert "edits 1 and 2 overlap" in result.content
    assert path.read_text() == "abcdef\n"


async def test_no_change(call: Call, tmp_path: Path) -> None:
    file(tmp_path, "say “hi”\n")
    same = await call(EDIT, path="f.txt", old_string="say", new_string="say")
    assert same.error_type == "no_change"
    # The loose match finds the curly quotes, and the replacement is what is already there.
    unchanged = await call(EDIT, path="f.txt", old_string='say "hi"', new_string="say “hi”")
    assert unchanged.error_type == "no_change"


async def test_keeps_crlf_when_the_model_sends_lf(call: Call, tmp_path: Path) -> None:
    path = file(tmp_path, "a\r\nb\r\nc\r\n")
    result = await call(EDIT, path="f.txt", old_string="a\nb", new_string="x\ny\nz")
    assert not result.is_error
    assert path.read_bytes() == b"x\r\ny\r\nz\r\nc\r\n"
    await call(EDIT, path="f.txt", old_string="z\r\nc", new_string="c")
    assert path.read_bytes() == b"x\r\ny\r\nc\r\n"


async def test_keeps_the_bom_and_bytes_that_are_not_utf8(call: Call, tmp_path: Path) -> None:
    path = file(tmp_path, b"\xef\xbb\xbfcaf\xe9 = 1\nvalue = 2\n")
    result = await call(EDIT, path="f.txt", old_string="value = 2", new_string="value = 3")
    assert not result.is_error
    assert " caf\ufffd = 1" in result.content
    assert path.read_bytes() == b"\xef\xbb\xbfcaf\xe9 = 1\nvalue = 3\n"


async def test_loose_match_changes_only_the_matched_region(call: Call, tmp_path: Path) -> None:
    original = "keep “this”  \nsay(“hi”)   \nnext — line\u00a0here\ntail “q”  \n"
    path = file(tmp_path, original)
    result = await call(
        EDIT, path="f.txt", old_string='say("hi")\nnext - line here', new_string="replaced"
    )
    assert not result.is_error, result.content
    assert "matched ignoring whitespace" in result.content
    assert path.read_text() == "keep “this”  \nreplaced\ntail “q”  \n"


async def test_loose_match_ignores_trailing_blanks_in_old_string_too(
    call: Call, tmp_path: Path
) -> None:
    path = file(tmp_path, "def f():\n    return 1\n")
    await call(EDIT, path="f.txt", old_string="def f():   \n    return 1  ", new_string="pass")
    assert path.read_text() == "pass\n"


async def test_loose_match_can_be_ambiguous(call: Call, tmp_path: Path) -> None:
    file(tmp_path, '“a”\n‘a’\n"a"x\n')
    result = await call(EDIT, path="f.txt", old_string='"a" ', new_string="b")
    assert result.error_type == "ambiguous"
    assert "2 places" in result.content


async def test_errors(call: Call, tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "blob").write_bytes(b"a\0b")
    os.mkfifo(tmp_path / "pipe")
    file(tmp_path, "text\n")
    cases = [
        ("not_a_file", {"path": "pipe", "old_string": "a", "new_string": "b"}),
        ("not_found", {"path": "missing", "old_string": "a", "new_string": "b"}),
        ("is_directory", {"path": "dir", "old_string": "a", "new_string": "b"}),
        ("binary_file", {"path": "blob", "old_string": "a", "new_string": "b"}),
        ("not_found", {"path": "f.txt", "old_string": "absent", "new_string": "b"}),
        ("validation_error", {"path": "f.txt"}),
        ("validation_error", {"path": "f.txt", "old_string": "", "new_string": "b"}),
        ("validation_error", {"path": "f.txt", "edits": ["text"]}),
        ("validation_error", {"path": "f.txt", "edits": [{"old_string": "text"}]}),
        (
            "validation_error",
            {
                "path": "f.txt",
                "edits": [{"old_string": "a", "new_string": "b"}],
                "old_string": "text",
                "new_string": "b",
            },
        ),
    ]
    for error_type, args in cases:
        result = await call(EDIT, **args)
        assert result.error_type == error_type, (args, result)
    assert (tmp_path / "f.txt").read_text() == "text\n"


def test_schema_describes_the_edits() -> None:
    items = EDIT.parameters["properties"]["edits"]["items"]
    assert items["required"] == ["new_string", "old_string"]
    assert set(items["properties"]) == {"old_string", "new_string", "replace_all"}
    assert EDIT.parameters["required"] == ["path"]


def apply_patch(old: str, diff: str) -> str:
    """Apply a unified diff made over `old.split("\\n")`."""
    lines, out, at = old.split("\n"), [], 0
    hunks = re.split(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$", diff, flags=re.M)[1:]
    for start, length, body in zip(hunks[::3], hunks[1::3], hunks[2::3], strict=True):
        begin = int(start) - (length != "0")
        out += lines[at:begin]
        at = begin
        for row in body.strip("\n").split("\n") if body.strip("\n") else []:
            if row[0] in " -":
                assert lines[at] == row[1:]
                at += 1
            if row[0] in " +":
                out.append(row[1:])
    return "\n".join(out + lines[at:])


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str, list[tuple[int, int, str]]]:
    text = "\n".join(draw(st.lists(st.sampled_from(["a", "b", "", "c c"]), max_size=30)))
    text += draw(st.sampled_from(["", "\n"]))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if end > start:
            spans.append((start, end, draw(st.sampled_from(["", "x", "\n", "y\nz", "a\n"]))))
    new, previous = [], 0
    for start, end, replacement in spans:
        new += (text[previous:start], replacement)
        previous = end
    return text, "".join([*new, text[previous:]]), spans


@settings(max_examples=200, deadline=None)
@given(edited())
def test_the_diff_turns_old_into_new(case: tuple[str, str, list[tuple[int, int, str]]]) -> None:
    old, new, spans = case
    diff = unified_diff(old, new, spans, "f")
    assert diff.startswith("--- f\n+++ f")
    assert apply_patch(old, diff.split("\n", 2)[2] if diff.count("\n") >= 2 else "") == new
