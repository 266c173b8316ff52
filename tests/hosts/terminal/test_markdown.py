"""The terminal's Markdown, streamed word by word through the real renderer: what a person sees,
and that it reads a reply the way `/export` does (one parser, markdown-it's CommonMark)."""

from __future__ import annotations

from auger.commands.export import Block, to_html
from auger.hosts.terminal.text import width
from auger.records import TextDelta, TextDone
from support.rendering import lines, live_text, renderer, stream

ITALIC = "\x1b[3m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


def exported(text: str) -> str:
    """The `<main>` of `/export`'s HTML page for a reply of `text`."""
    page = to_html("t", "s", [Block("assistant", text)])
    return page.split("<main>", 1)[1].split("</main>", 1)[0]


def shown(text: str, cells: int = 60) -> list[str]:
    r = renderer(cells)
    stream(r, text)
    return lines(r)


# -- streaming: finished blocks at once, the open block live ---------------------------------


def test_a_paragraph_is_shown_when_it_ends_and_stays_live_until_then() -> None:
    r = renderer()
    for piece in ["Hello ", "**world**.\nSecond", " line so"]:
        r.feed(TextDelta(piece))
    assert r.take() == ""
    assert live_text(r) == "Hello **world**.\nSecond line so"
    r.feed(TextDelta(" far.\n\nNext"))
    assert r.take() == "Hello world.\nSecond line so far.\n"
    assert live_text(r) == "Next"
    r.feed(TextDone(""))
    assert r.take() == "\nNext\n"
    assert not r.has_live()


def test_list_items_are_shown_as_the_next_one_starts() -> None:
    r = renderer()
    r.feed(TextDelta("1. first\n2. second\n"))
    assert r.take() == "1. first\n"
    assert live_text(r) == "2. second\n"
    r.feed(TextDelta("3. third\n\nafter\n\n"))
    assert lines(r) == ["2. second", "3. third", "", "after"]


def test_markdown_blocks_are_drawn() -> None:
    assert shown(
        "# Title\n\nSome **bold**, `code`, *italics* and a [link](https://x.y).\n\n"
        "- one\n- [x] done\n  1. nested\n\n> quoted\n\n---\nend"
    ) == [
        "Title",
        "",
        "Some bold, code, italics and a link (https://x.y).",
        "",
        "• one",
        "☑ done",
        "  1. nested",
        "",
        "│ quoted",
        "",
        "─" * 60,
        "end",
    ]


def test_styles_become_escape_sequences_and_nest() -> None:
    r = renderer(color=True)
    stream(r, "**bold** and `code`, **bold `x`** b")
    assert r.take() == (
        f"{BOLD}bold{RESET} and \x1b[36mcode{RESET}, {BOLD}bold {RESET}\x1b[1;36mx{RESET} b\n"
    )


def test_emphasis_inside_words_follows_commonmark_like_the_export() -> None:
    text = "call snake_case_name and 2*3*4"
    r = renderer(color=True)
    stream(r, text)
    assert r.take() == f"call snake_case_name and 2{ITALIC}3{RESET}4\n"
    assert "snake_case_name and 2<em>3</em>4" in exported(text)


def test_strike_through_is_read_alike_by_both() -> None:
    r = renderer(color=True)
    stream(r, "~~old~~ new")
    assert r.take() == f"\x1b[9mold{RESET} new\n"
    assert "<s>old</s> new" in exported("~~old~~ new")


def test_a_setext_heading_and_a_hard_break_are_read_as_the_export_reads_them() -> None:
    text = "Title\n=====\n\nline one  \nline two\\\nline three"
    r = renderer(color=True)
    stream(r, text)
    assert r.take() == (f"\x1b[1;4;35mTitle{RESET}\n\nline one\nline two\nline three\n")
    html = exported(text)
    assert "<h1>Title</h1>" in html and html.count("<br />") == 2


def test_escaped_characters_are_shown_without_their_backslash() -> None:
    text = "\\*not em\\* and \\`tick\\` and \\[not](a link)"
    assert shown(text) == ["*not em* and `tick` and [not](a link)"]
    assert "<em>" not in exported(text) and "<code>" not in exported(text)


def test_html_looking_text_is_shown_as_text() -> None:
    text = "<div>\n*hi* <script>alert(1)</script> &lt;b&gt; &amp;\n</div>"
    assert shown(text) == ["<div>", "hi <script>alert(1)</script> <b> &", "</div>"]
    html = exported(text)
    assert "&lt;script&gt;" in html and "<div>" not in html and "&lt;b&gt; &amp;" in html


def test_links_show_their_address_once() -> None:
    text = '[label](https://a.b/c "a title") and <https://x.y> and ![logo](img.png)'
    assert shown(text, 100) == ["label (https://a.b/c) and https://x.y and logo (img.png)"]


def test_ordered_lists_are_numbered_and_nest() -> None:
    text = "1. one\n1. two\n   - a\n     - deep\n1. three\n\n7) seven\n8) eight"
    assert shown(text) == [
        "1. one",
        "2. two",
        "   • a",
        "     • deep",
        "3. three",
        "",
        "7) seven",
        "8) eight",
    ]
    html = exported(text)
    assert html.count("<li>") == 7 and '<ol start="7">' in html


def test_quotes_nest_and_hold_code_as_code() -> None:
    assert shown("> a\n>> b\n>\n> ```py\n> x = *y*\n> ```") == [
        "│ a",
        "│ │ b",
        "│ ",
        "│ ```py",
        "│ x = *y*",
        "│ ```",
    ]


def test_a_fence_inside_a_list_is_code_indented_under_its_item() -> None:
    r = renderer(color=True)
    stream(r, "1. Run:\n   ```python\n   def f(): *x*\n   ```\n   then check\n1. next")
    out = r.take()
    assert "   \x1b[35mdef\x1b[0m \x1b[34mf\x1b[0m(): *x*\n" in out
    assert out.endswith("\n   then check\n\x1b[33m2. \x1b[0mnext\n")


# -- code blocks ----------------------------------------------------------------------------


def test_a_code_block_is_held_until_it_closes_then_highlighted() -> None:
    r = renderer(color=True)
    for piece in ["```python\n", "def f():\n", "    return 'hi'\n"]:
        r.feed(TextDelta(piece))
    assert "def" not in r.take()
    assert "return 'hi'" in live_text(r)
    r.feed(TextDelta("```\nafter"))
    r.feed(TextDone(""))
    out = r.take()
    assert "\x1b[35mdef\x1b[0m" in out  # the keyword, coloured
    assert "\x1b[32m'hi'\x1b[0m" in out  # the string, one run
    assert out.endswith("after\n")


def test_a_code_block_in_an_unknown_language_is_shown_plain() -> None:
    assert shown("```nosuchlanguage\nx = *1*\n```") == ["```nosuchlanguage", "x = *1*", "```"]


def test_a_long_open_code_block_is_let_out_in_chunks() -> None:
    r = renderer()
    r.feed(TextDelta("```\n" + "".join(f"line {n}\n" for n in range(100))))
    assert lines(r) == ["```", *(f"line {n}" for n in range(80))]
    assert "line 99" in live_text(r) and "line 79" not in live_text(r)


def test_an_unclosed_fence_at_the_end_of_the_stream_is_code_to_the_end() -> None:
    r = renderer()
    stream(r, "Look:\n\n  ````\n  ```\n  # not a heading\n- not an item")
    assert lines(r) == ["Look:", "", "````", "```", "# not a heading", "- not an item"]
    stream(r, "# Next reply")
    assert lines(r) == ["", "Next reply"]


# -- tables -----------------------------------------------------------------------------------


def test_a_table_is_aligned_as_its_delimiter_row_says() -> None:
    assert shown("| name | size |\n|---|--:|\n| read | 1 |\n| `edit` | 200 |\n\nafter") == [
        "name │ size",
        "─────┼─────",
        "read │    1",
        "edit │  200",
        "",
        "after",
    ]


def test_a_table_too_wide_for_the_screen_is_a_row_a_line() -> None:
    assert shown("| a | " + "b" * 30 + " |\n|---|---|\n| 1 | 2 |", cells=20)[-1] == "1 │ 2"


# -- width, wrapping, what reaches the terminal -----------------------------------------------


def test_long_lines_wrap_with_a_hanging_indent() -> None:
    out = shown("- " + "word " * 12, cells=30)
    assert out[0].startswith("• word")
    assert all(line.startswith("  word") for line in out[1:])
    assert all(width(line) <= 30 for line in out)
    assert " ".join(line.strip("• ") for line in out).split() == ["word"] * 12


def test_wide_characters_wrap_and_align_by_the_cells_they_take() -> None:
    text = "- " + "日本語の*文章*、" * 6 + "\n\n| 名前 | n |\n|---|---|\n| 読む | 1 |\n| ab | 22 |"
    out = shown(text, cells=20)
    assert out[: out.index("")] == [
        "• 日本語の文章",
        *["  、日本語の文章"] * 4,
        "  、日本語の文章、",
    ]
    assert all(width(line) <= 20 for line in out)
    assert out[-3:] == ["─────┼───", "読む │ 1", "ab   │ 22"]


def test_a_word_longer_than_the_screen_is_broken() -> None:
    out = shown("see <https://example.com/" + "x" * 40 + "> now", cells=20)
    assert all(width(line) <= 20 for line in out)
    assert "".join(out).replace(" ", "") == "seehttps://example.com/" + "x" * 40 + "now"


def test_escape_sequences_in_a_reply_never_reach_the_terminal() -> None:
    r = renderer(color=True)
    r.feed(TextDelta("a\x1b]0;title\x07b \x1b[2Jc \x9b31md &#13;e\nstill \x1b[1mopen"))
    assert "\x1b" not in live_text(r) and "\x9b" not in live_text(r)
    r.feed(TextDone(""))
    out = r.take()
    assert out == "ab c 31md e\nstill open\n"
