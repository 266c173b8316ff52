"""The terminal's renderer: records in, the lines a person sees out (colour off unless asked)."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from auger.hosts.terminal.render import RESULT_LINES
from auger.hosts.terminal.status import Status, tokens
from auger.hosts.terminal.text import Theme, brief_args, clean, fit, width, wrap
from auger.llm.usage import Usage
from auger.records import (
    AfterToolCall,
    BeforeToolCall,
    CommandOutput,
    Compact,
    JobExit,
    Notify,
    ReasoningDelta,
    ReasoningDone,
    Record,
    TextDelta,
    TokenUsageDone,
    ToolCallDelta,
    ToolCallDone,
    TurnEnd,
)
from auger.tools.base import ToolResponse
from support.rendering import lines, live_text, renderer, stream

RED = "\x1b[31m"
GREEN = "\x1b[32m"


def call(
    tool: str, args: dict[str, Any], content: str, error: str | None = None, call_id: str = "c1"
) -> AfterToolCall:
    return AfterToolCall(call_id, tool, args, ToolResponse(content, error), 2.0, 0.5)


# -- streamed text ---------------------------------------------------------------------------


def test_a_cancelled_reply_keeps_what_was_said() -> None:
    r = renderer()
    r.feed(TextDelta("Working on"))
    r.feed(TurnEnd("cancelled", Usage()))
    assert lines(r) == ["Working on", "", "⏹ cancelled"]


# -- reasoning --------------------------------------------------------------------------------


def test_reasoning_streams_dimmed_then_folds_to_one_line() -> None:
    r = renderer(color=True)
    r.feed(ReasoningDelta("First thought."))
    r.feed(ReasoningDelta("\nSecond thought."))
    assert r.live() == [
        ("class:live.reasoning", "∴ First thought."),
        ("", "\n"),
        ("class:live.reasoning", "∴ Second thought."),
    ]
    assert r.take() == ""
    r.feed(ReasoningDone("First thought.\nSecond thought."))
    stream(r, "Answer.")
    out = r.take()
    assert out == (
        "\x1b[90;3m∴ First thought.\x1b[0m\x1b[90m  (+1 lines, ctrl-o)\x1b[0m\n\nAnswer.\n"
    )


def test_expand_shows_the_latest_folded_thing_in_full() -> None:
    r = renderer()
    r.feed(ReasoningDone("First thought.\nSecond thought."))
    r.take()
    assert r.expand()
    assert lines(r) == ["", "── reasoning", "│ First thought.", "│ Second thought."]
    assert not r.expand()


# -- tool calls -------------------------------------------------------------------------------


def test_a_tool_call_is_live_while_it_runs_then_one_line_and_a_result() -> None:
    r = renderer()
    r.feed(ToolCallDelta("c1", "read", '{"pa'))
    assert live_text(r) == "⚙ read(…)"
    r.feed(ToolCallDone("c1", "read", '{"path": "a.py"}'))
    r.feed(BeforeToolCall("c1", "read", {"path": "a.py"}, 1.0))
    assert live_text(r) == '⚙ read(path="a.py")'
    r.feed(call("read", {"path": "a.py"}, "line 1\nline 2\nline 3"))
    assert not r.has_live()
    assert lines(r) == ['⚙ read(path="a.py")', "  ⎿ line 1 (+2 lines, ctrl-o)"]
    assert r.expand()
    assert lines(r) == ["", '── read(path="a.py")', "line 1", "line 2", "line 3"]


def test_a_tool_call_line_is_fitted_to_the_width() -> None:
    r = renderer(cells=40)
    r.feed(call("write", {"path": "a.py", "content": "x" * 500}, "Wrote a.py"))
    header, result = lines(r)
    assert width(header) == 40 and header.endswith("…")
    assert header.startswith('⚙ write(path="a.py", content="xxx')
    assert result == "  ⎿ Wrote a.py"


def test_consecutive_tool_calls_are_grouped_and_set_apart_from_text() -> None:
    r = renderer()
    stream(r, "Let me look.")
    r.feed(call("ls", {}, "a.py", call_id="c1"))
    r.feed(call("ls", {"path": "src"}, "", call_id="c2"))
    stream(r, "Done.")
    assert lines(r) == [
        "Let me look.",
        "",
        "⚙ ls()",
        "  ⎿ a.py",
        '⚙ ls(path="src")',
        "  ⎿ (no output)",
        "",
        "Done.",
    ]


def test_a_failed_tool_call_is_red() -> None:
    r = renderer(color=True)
    r.feed(call("bash", {"command": "false"}, "(no output)\n\n[exit code 1]", "command_failed"))
    header, result = lines(r)
    assert header.startswith(f"{RED}⚙ ")
    assert f"{RED}✗ [exit code 1]" in result


def test_an_edit_result_is_a_coloured_diff() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1,3 +1,3 @@\n x = 1\n-y = 2\n+y = 20\n z = 3"
    r = renderer(color=True)
    r.feed(call("edit", {"path": "a.py"}, f"Edited a.py: 1 replacement\n\n{diff}"))
    out = r.take()
    assert "\x1b[90m  ⎿ \x1b[0mEdited a.py: 1 replacement\n" in out
    assert f"    {RED}-y = 2\x1b[0m" in out
    assert f"    {GREEN}+y = 20\x1b[0m" in out
    assert "    \x1b[36m@@ -1,3 +1,3 @@\x1b[0m" in out


def test_a_long_diff_is_cut_and_can_be_expanded() -> None:
    body = "\n".join(f"+line {n}" for n in range(40))
    r = renderer()
    r.feed(call("edit", {"path": "a.py"}, f"Edited a.py\n\n@@ -0,0 +1,40 @@\n{body}"))
    out = lines(r)
    assert out[-1] == f"    … +{41 - RESULT_LINES} lines (ctrl-o)"
    assert r.expand()
    assert lines(r)[-1] == "+line 39"


def test_tool_output_cannot_drive_the_terminal() -> None:
    r = renderer()
    r.feed(call("bash", {"command": "x"}, "\x1b[2J\x1b]0;title\x07ok\x1b[31m red\x07\x00"))
    assert lines(r)[1] == "  ⎿ ok red"


def test_brief_args_cut_long_strings() -> None:
    assert brief_args({"path": "a", "n": 3, "flag": True}) == 'path="a", n=3, flag=true'
    assert brief_args({"text": "y" * 200}) == f'text="{"y" * 79}…"'


# -- commands, notices, the end of a turn -----------------------------------------------------


def test_a_shell_command_shows_what_ran_and_its_output() -> None:
    r = renderer()
    r.feed(CommandOutput("!echo hi", "hi\nthere\n"))
    assert lines(r) == ["$ echo hi", "hi", "there"]


def test_long_shell_output_is_cut_and_can_be_expanded() -> None:
    r = renderer()
    r.feed(CommandOutput("!seq 30", "\n".join(str(n) for n in range(1, 31))))
    out = lines(r)
    assert out[-1] == f"… +{30 - RESULT_LINES} lines (ctrl-o)"
    assert r.expand()
    assert lines(r)[-1] == "30"


def test_command_output_is_shown_as_written() -> None:
    r = renderer()
    r.feed(CommandOutput("help", "/help   list the commands\n/model  switch"))
    assert lines(r) == ["/help   list the commands", "/model  switch"]


def test_notices_are_coloured_by_level() -> None:
    r = renderer(color=True)
    r.feed(Notify("fyi", "info"))
    r.feed(Notify("careful", "warning"))
    r.feed(Notify("broken", "error"))
    assert lines(r) == [
        "\x1b[36mℹ \x1b[0mfyi",
        "\x1b[33m⚠ \x1b[0m\x1b[33mcareful\x1b[0m",
        f"{RED}✗ \x1b[0m{RED}broken\x1b[0m",
    ]


def test_an_extensions_failure_is_prefixed() -> None:
    r = renderer()
    r.feed(Notify("tool_call handler failed: boom", "error"))
    r.feed(Notify("Extension guard failed to load: SyntaxError", "error"))
    r.feed(Notify("the model failed", "error"))
    assert lines(r) == [
        "✗ (extension) tool_call handler failed: boom",
        "✗ (extension) Extension guard failed to load: SyntaxError",
        "✗ the model failed",
    ]


def test_a_failed_turn_says_why_once() -> None:
    r = renderer()
    r.feed(TurnEnd("error", Usage(), error={"kind": "server", "message": "overloaded"}))
    assert lines(r) == ["✗ turn ended (error): overloaded"]
    r.feed(Notify("overloaded", "error"))
    r.feed(TurnEnd("error", Usage(), error={"kind": "server", "message": "overloaded"}))
    assert lines(r) == ["✗ overloaded"]


def test_other_runtime_records_are_quiet_lines() -> None:
    r = renderer(cells=100)
    r.feed(Compact(12, 4, True))
    r.feed(JobExit("j1", "make", 0, None, 3.0, "/tmp/out"))
    assert lines(r) == [
        "⟳ conversation compacted automatically: 12 messages summarised, 4 kept",
        "⚑ job j1 (make) ended: exit code 0",
    ]


def test_records_of_unknown_types_are_ignored() -> None:
    class Custom(Record, frozen=True):
        type: ClassVar[str] = "my_extension_record"
        value: int

    r = renderer()
    r.feed(Custom(1))
    r.feed(TokenUsageDone(Usage(10, 2)))
    assert r.take() == ""


def test_what_the_person_typed_is_echoed() -> None:
    r = renderer()
    r.user("fix it\nplease")
    stream(r, "Done.")
    assert lines(r) == ["› fix it", "  please", "", "Done."]


def test_the_live_tail_is_bounded() -> None:
    r = renderer(cells=20)
    r.live_rows = 4
    r.feed(TextDelta("x" * 200))
    rows = live_text(r).split("\n")
    assert len(rows) == 1 and width(rows[0]) <= 4 * 20 and rows[0].startswith("…")
    r.feed(TextDelta("\n".join(["```", *map(str, range(30)), ""])))
    assert live_text(r).split("\n")[-4:] == ["27", "28", "29", ""]


# -- text helpers and the status line ---------------------------------------------------------


def test_width_and_fit_count_terminal_cells() -> None:
    assert width("日本") == 4
    assert fit("日本語です", 5) == "日本…"
    assert fit("abcdef", 4) == "abc…"
    assert fit("abc", 4) == "abc"


def test_wrap_breaks_words_too_long_for_a_line() -> None:
    theme = Theme(color=False)
    assert wrap(theme, [("", "x" * 25)], 10) == ["x" * 10, "x" * 10, "x" * 5]


def test_clean_keeps_text_and_drops_controls() -> None:
    assert clean("a\tb\x1b[1mc\x07") == "a   bc"


def test_status_line() -> None:
    status = Status()
    assert status.line() == "starting…"
    status.model, status.window = "anthropic/claude-sonnet-4-5", 200_000
    status.feed(TokenUsageDone(Usage(24_000, 1_000)))
    status.usage = Usage(150_000, 12_345, cost=0.01234)
    assert status.line() == (
        "anthropic/claude-sonnet-4-5 · ctx 12% of 200k · ↑150k ↓12.3k · $0.0123"
    )
    status.usage = msgspec.structs.replace(status.usage, cost=None)
    assert status.line().endswith("· $—")
    assert [tokens(n) for n in (950, 1000, 12_345, 2_000_000)] == ["950", "1k", "12.3k", "2M"]
