"""Permission rules in Claude Code's syntax, with auger's tool names or Claude Code's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auger.extensions.permissions.rules import Call, Rule, RuleError, parse_rule


def call(tool: str, project: Path, **args: Any) -> Call:
    return Call(tool, args, project, project.parent / "home")


@pytest.mark.parametrize(
    ("text", "tool", "specifier"),
    [
        ("Bash(npm test:*)", "bash", "npm test:*"),
        ("bash(git status)", "bash", "git status"),
        ("Edit(src/**)", "edit", "src/**"),
        ("MultiEdit", "edit", None),
        ("Read(./.env)", "read", "./.env"),
        ("Glob", "find", None),
        ("LS", "ls", None),
        ("WebFetch(domain:example.com)", "web_fetch", "domain:example.com"),
        ("mcp__git__git_log", "git__git_log", None),
        ("mcp__git", "git__*", None),
        ("mcp__git__*", "git__*", None),
        ("time__now", "time__now", None),
    ],
)
def test_both_naming_styles_parse_to_auger_names(text: str, tool: str, specifier: str) -> None:
    assert parse_rule(text) == Rule(text, tool, specifier)


@pytest.mark.parametrize("text", ["", "Bash(", "Bash()", "(ls)", "Bash(ls", "two words"])
def test_a_rule_that_is_not_a_rule_is_an_error(text: str) -> None:
    with pytest.raises(RuleError):
        parse_rule(text)


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(npm test:*)", "npm test", True),
        ("Bash(npm test:*)", "npm  test --watch", True),
        ("Bash(npm test:*)", "npm testing", False),
        ("Bash(git status)", "git status", True),
        ("Bash(git status)", "git status --short", False),
        ("Bash(git *)", "git log -1", True),
        ("Bash(git *)", "git", True),
        ("Bash(npm * --save)", "npm install x --save", True),
        ("Bash(npm * --save)", "npm install x", False),
        ("Bash", "anything at all", True),
        ("Bash(*)", "anything at all", True),
    ],
)
def test_shell_rules_match_one_simple_command(
    tmp_path: Path, rule: str, command: str, expected: bool
) -> None:
    assert parse_rule(rule).matches(call("bash", tmp_path, command=command)) is expected


def test_path_rules_are_globs_relative_to_the_project(tmp_path: Path) -> None:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    src = parse_rule("Edit(src/**)")
    assert src.matches(call("edit", tmp_path, path="src/deep/a.py"))
    assert src.matches(call("write", tmp_path, path=str(tmp_path / "src/a.py")))  # edit ⊇ write
    assert not src.matches(call("edit", tmp_path, path="lib/a.py"))
    assert not src.matches(call("read", tmp_path, path="src/a.py"))
    env = parse_rule("Read(./.env)")
    assert env.matches(call("read", tmp_path, path=".env"))
    assert not env.matches(call("read", tmp_path, path="sub/.env"))  # ./ anchors it
    assert parse_rule("Read(.env)").matches(call("read", tmp_path, path="sub/.env"))
    assert parse_rule("Read(//etc/**)").matches(call("read", tmp_path, path="/etc/passwd"))
    home = tmp_path.parent / "home"
    assert parse_rule("Read(~/.ssh/**)").matches(call("read", tmp_path, path=str(home / ".ssh/k")))
    assert parse_rule("Read(src/**)").matches(call("grep", tmp_path, path="src"))  # read ⊇ grep


def test_a_path_through_a_symlink_is_matched_where_it_leads(tmp_path: Path) -> None:
    (tmp_path / "secret").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    assert parse_rule("Edit(secret/**)").matches(call("edit", tmp_path, path="link/x"))


def test_mcp_and_web_fetch_rules(tmp_path: Path) -> None:
    assert parse_rule("mcp__git").matches(call("git__git_log", tmp_path))
    assert not parse_rule("mcp__git").matches(call("gitlab__issues", tmp_path))
    fetch = parse_rule("WebFetch(domain:example.com)")
    assert fetch.matches(call("web_fetch", tmp_path, url="https://docs.example.com/x"))
    assert not fetch.matches(call("web_fetch", tmp_path, url="https://example.com.evil.io/"))


def test_a_folder_rule_of_its_files_covers_a_search_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    assert parse_rule("Read(src/*)").matches(call("grep", tmp_path, path="src"))
    assert not parse_rule("Read(src/*.py)").matches(call("grep", tmp_path, path="src"))
