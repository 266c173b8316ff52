"""Truncation helpers."""

from __future__ import annotations

from auger.tools.truncate import clip_bytes, clip_line, format_size, head, limit_notice, tail


def test_head_and_tail_by_lines() -> None:
    text = "\n".join(str(n) for n in range(1, 11))
    first = head(text, max_lines=3)
    assert (first.text, first.kept_lines, first.total_lines, first.truncated) == (
        "1\n2\n3",
        3,
        10,
        True,
    )
    last = tail(text, max_lines=3)
    assert (last.text, last.kept_lines, last.truncated) == ("8\n9\n10", 3, True)
    whole = head(text)
    assert (whole.text, whole.kept_lines, whole.truncated) == (text, 10, False)


def test_head_and_tail_by_bytes_keep_whole_lines() -> None:
    text = "aaaa\nbbbb\ncccc"
    assert head(text, max_bytes=10).text == "aaaa\nbbbb"
    assert tail(text, max_bytes=10).text == "bbbb\ncccc"
    assert tail(text, max_bytes=8).text == "cccc"


def test_a_single_line_over_the_budget_is_cut_on_a_character_edge() -> None:
    line = "é" * 10  # 20 bytes
    assert head(line, max_bytes=5).text == "éé"
    assert tail("x\n" + line, max_bytes=5).text == "éé"
    assert clip_bytes("aé", 2) == "a"
    assert clip_bytes("éa", 2, from_end=True) == "a"


def test_clip_line_and_sizes() -> None:
    assert clip_line("abc", 5) == "abc"
    assert clip_line("abcdefg", 5) == "abcde… [line truncated: 2 more chars]"
    assert [format_size(n) for n in (512, 2048, 3 * 1024 * 1024)] == ["512 B", "2.0 KB", "3.0 MB"]
    assert limit_notice(5, "items", "narrow it") == (
        "[5 items limit reached. Use limit=10 for more, or narrow it.]"
    )
