"""`auger -p`'s stderr line for a tool call keeps a failed call's hint whole."""

from __future__ import annotations

from auger.hosts.printers import tool_line
from auger.records import AfterToolCall
from auger.tools.base import ToolResponse


def line(error: str) -> str:
    result = ToolResponse.error("blocked", error)
    return tool_line(AfterToolCall("c1", "bash", {"command": "ls -la"}, result, 0.0, 0.0))


def test_a_permission_hint_is_shown_whole() -> None:
    hint = (
        "ERROR: bash needs permission — allow it with --allow 'bash(ls -la)' or "
        "--permission-mode auto"
    )
    assert line(hint) == f"[bash] ls -la (blocked: {hint}, 0.00 s)"


def test_a_long_error_is_cut_between_words() -> None:
    shown = line("word " * 200)
    assert shown.endswith("word …, 0.00 s)")
    assert len(shown) < 450
