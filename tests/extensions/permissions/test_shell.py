"""Reading a shell command line with a real bash parser, and deciding it (SPEC §6): 100+ forms,
each with the decision a user expects. The forms of the red team's list are all here."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.extensions.permissions.policy import Rules, decide
from auger.extensions.permissions.rules import Call
from auger.extensions.permissions.shell import analyse, words

DENY = Rules.parse([], [], ["bash(rm:*)", "bash(touch:*)"])
ECHO = Rules.parse(["bash(echo:*)", "bash(git status)", "bash(ls:*)"], [], [])

# In mode auto with `--deny 'bash(rm:*)' --deny 'bash(touch:*)'`: every way of running rm or
# touch is denied; what runs neither is allowed.
AUTO_DENY = [
    ("rm x", "deny"),
    ("X=1 rm x", "deny"),
    ("env rm x", "deny"),
    ("env X=1 rm x", "deny"),
    ("env -i PATH=/bin rm x", "deny"),
    ("env -u HOME rm x", "deny"),
    ("env -- rm x", "deny"),
    ("command rm x", "deny"),
    ("command -p rm x", "deny"),
    ("builtin command rm x", "deny"),
    ("exec rm x", "deny"),
    ("exec -a name rm x", "deny"),
    ("nice rm x", "deny"),
    ("nice -n 10 rm x", "deny"),
    ("nohup rm x", "deny"),
    ("time rm x", "deny"),
    ("time -p rm x", "deny"),
    ("timeout 5 rm x", "deny"),
    ("timeout -s KILL -k 2 5 rm x", "deny"),
    ("timeout --signal=TERM 5 rm x", "deny"),
    ("stdbuf -oL rm x", "deny"),
    ("stdbuf -o L rm x", "deny"),
    ("xargs rm", "deny"),
    ("xargs -0 -n 1 rm", "deny"),
    ("xargs -I{} rm {}", "deny"),
    ("echo x | xargs rm", "deny"),
    ("sudo rm x", "deny"),
    ("sudo -u bob rm x", "deny"),
    ("sudo -- rm x", "deny"),
    ("doas rm x", "deny"),
    ("doas -u bob rm x", "deny"),
    ("setsid rm x", "deny"),
    ("ionice -c 3 rm x", "deny"),
    ("busybox rm x", "deny"),
    ("busybox sh -c 'rm x'", "deny"),
    ("unbuffer rm x", "deny"),
    ("chrt 10 rm x", "deny"),
    ("taskset 0x1 rm x", "deny"),
    ("flock /tmp/lock rm x", "deny"),
    ("flock /tmp/lock -c 'rm x'", "deny"),
    ("su -c 'rm x' bob", "deny"),
    ("runuser -u bob --command='rm x'", "deny"),
    ("script -q -c 'rm x' /dev/null", "deny"),
    ("watch -n 1 rm x", "deny"),
    ("watch 'ls; rm x'", "deny"),
    ("nice timeout 5 env X=1 rm x", "deny"),
    ("find . -exec rm {} +", "deny"),
    ("find . -name '*.o' -exec rm {} \\;", "deny"),
    ("find . -execdir rm {} +", "deny"),
    ("find . -ok rm {} \\;", "deny"),
    ("/usr/bin/rm x", "deny"),
    ("/bin/rm x", "deny"),
    ("./rm x", "deny"),
    ("$'rm' x", "deny"),
    ("'rm' x", "deny"),
    ('"rm" x', "deny"),
    ("r\\m x", "deny"),
    ("\\rm x", "deny"),
    ("r''m x", "deny"),
    ("rm${IFS}x", "deny"),
    ("{ rm x; }", "deny"),
    ("(rm x)", "deny"),
    ("( cd /tmp && rm x )", "deny"),
    ("if true; then rm x; fi", "deny"),
    ("if rm x; then :; fi", "deny"),
    ("if false; then :; else rm x; fi", "deny"),
    ("for f in x; do rm $f; done", "deny"),
    ("for ((i=0;i<1;i++)); do rm x; done", "deny"),
    ("while true; do rm x; break; done", "deny"),
    ("until rm x; do :; done", "deny"),
    ("case x in x) rm x;; esac", "deny"),
    ("! rm x", "deny"),
    ("true && rm x", "deny"),
    ("false || rm x", "deny"),
    ("true; rm x", "deny"),
    ("true\nrm x", "deny"),
    ("true & rm x", "deny"),
    ("echo x | rm x", "deny"),
    ("ls |& rm x", "deny"),
    ("echo $(rm x)", "deny"),
    ('echo "$(rm x)"', "deny"),
    ("echo `rm x`", "deny"),
    ("cat <(rm x)", "deny"),
    ("echo > >(rm x)", "deny"),
    ("X=$(rm x) true", "deny"),
    ("export X=$(rm x)", "deny"),
    ("echo $((1 + $(rm x)))", "deny"),
    ("cat <<EOF\n$(rm x)\nEOF", "deny"),
    ("echo x > $(rm x)", "deny"),
    ("[[ -n $(rm x) ]]", "deny"),
    ("eval rm x", "deny"),
    ("eval 'echo hi'", "deny"),  # opaque: denied in auto while a deny rule names bash
    ("$(echo rm) x", "deny"),
    ("`echo rm` x", "deny"),
    ("t=rm; $t x", "deny"),
    ("${CMD} x", "deny"),
    ("sh <<< 'rm x'", "deny"),
    ("bash <<EOF\nrm x\nEOF", "deny"),
    ("printf 'rm x' | bash", "deny"),
    ("echo rm x | sh -s", "deny"),
    ("source /dev/stdin <<< 'rm x'", "deny"),
    (". <(echo rm x)", "deny"),
    ("source $SCRIPT", "deny"),
    ("bash -c 'rm x'", "deny"),
    ("sh -c 'rm x'", "deny"),
    ("bash -lc 'rm x'", "deny"),
    ("bash -e -c 'rm x'", "deny"),
    ("bash -o pipefail -c 'rm x'", "deny"),
    ("/bin/sh -c 'rm x'", "deny"),
    ("zsh -c 'rm x'", "deny"),
    ("bash -c \"bash -c 'rm x'\"", "deny"),
    ('bash -c "$CMD"', "deny"),
    ("env bash -c 'timeout 1 rm x'", "deny"),
    ("f() { rm x; }; f", "deny"),
    ("alias x=rm; x y", "deny"),
    ("touch x", "deny"),
    ("echo hi > x && touch y", "deny"),
    ("ls 'unclosed", "deny"),
    # what runs neither rm nor touch is allowed
    ("ls -la", "allow"),
    ("git status && git diff", "allow"),
    ("echo rm x", "allow"),
    ("echo 'rm x; touch y'", "allow"),
    ("grep -r rm .", "allow"),
    ("command -v rm", "allow"),
    ("bash -c 'echo hi'", "allow"),
    ("bash script.sh", "allow"),
    ("find . -name '*.py'", "allow"),
    ("timeout 5 pytest -q", "allow"),
    ("cat <<'EOF'\n$(rm x)\nEOF", "allow"),  # a quoted here-document is not expanded
]


def test_the_table_has_over_a_hundred_forms() -> None:
    assert len(AUTO_DENY) + len(ASK_ECHO) + len(READ_ONLY) >= 100


@pytest.mark.parametrize(("line", "expected"), AUTO_DENY)
def test_a_deny_rule_holds_in_every_shell_form(tmp_path: Path, line: str, expected: str) -> None:
    verdict = decide(DENY, "auto", Call("bash", {"command": line}, tmp_path, tmp_path))
    assert verdict.outcome == expected, (line, verdict)


# In mode ask with `bash(echo:*)`, `bash(git status)` and `bash(ls:*)` allowed.
ASK_ECHO = [
    ("echo hi", "allow"),
    ("ls -la && echo done", "allow"),
    ("git status", "allow"),
    ("git status --short", "ask"),
    ("echo $(whoami)", "ask"),
    ("echo hi; rm x", "ask"),
    ("eval echo hi", "ask"),
    ("$'echo' hi", "allow"),
    ("/bin/echo hi", "allow"),
    ("echo hi > notes.txt", "ask"),
    ("echo hi >> notes.txt", "ask"),
    ("echo hi 2>/dev/null", "allow"),
    ("echo hi 2>&1", "allow"),
    ("ls | sh", "ask"),
    ("timeout 5 echo hi", "allow"),
    ("bash -c 'echo hi'", "allow"),
    ("bash -c 'echo hi; curl evil'", "ask"),
    ("echo `curl evil`", "ask"),
]


@pytest.mark.parametrize(("line", "expected"), ASK_ECHO)
def test_allow_rules_cover_only_what_they_name(tmp_path: Path, line: str, expected: str) -> None:
    verdict = decide(ECHO, "ask", Call("bash", {"command": line}, tmp_path, tmp_path))
    assert verdict.outcome == expected, (line, verdict)


# In mode read-only (the planning mode), no rules: reading commands run, the rest is denied.
READ_ONLY = [
    ("ls -la", "allow"),
    ("git diff HEAD~1", "allow"),
    ("git log --oneline | head -5", "allow"),
    ("grep -rn TODO src", "allow"),
    ("rg foo", "allow"),
    ("cat a.txt | wc -l", "allow"),
    ("find . -name '*.py'", "allow"),
    ("find . -delete", "deny"),
    ("find . -exec cat {} +", "deny"),
    ("git commit -m x", "deny"),
    ("git -c core.pager=evil log", "deny"),
    ("git diff --output=x", "deny"),
    ("sort -o out a.txt", "deny"),
    ("echo hi > M", "deny"),
    ("echo hi >> M", "deny"),
    ("echo hi 1>M", "deny"),
    ("echo hi &>M", "deny"),
    ("cat a > b", "deny"),
    ("ls > /dev/null", "allow"),
    ("touch x", "deny"),
    ("eval ls", "deny"),
    ("pytest", "deny"),
]


@pytest.mark.parametrize(("line", "expected"), READ_ONLY)
def test_read_only_mode_runs_only_reading_commands(
    tmp_path: Path, line: str, expected: str
) -> None:
    verdict = decide(Rules(), "read-only", Call("bash", {"command": line}, tmp_path, tmp_path))
    assert verdict.outcome == expected, (line, verdict)


def test_an_allow_rule_does_not_let_a_redirection_write_in_read_only_mode(tmp_path: Path) -> None:
    echo = Rules.parse(["bash(echo:*)"], [], [])
    for line in ["echo hi > M", "echo hi >> M", "echo hi 1>M", "echo hi &>M"]:
        verdict = decide(echo, "read-only", Call("bash", {"command": line}, tmp_path, tmp_path))
        assert verdict.outcome == "deny", line
        assert verdict.reason is not None and "writes to M" in verdict.reason


def test_an_opaque_command_in_auto_says_it_could_not_be_read(tmp_path: Path) -> None:
    verdict = decide(DENY, "auto", Call("bash", {"command": "eval rm x"}, tmp_path, tmp_path))
    assert verdict.reason is not None
    assert "could not be read (eval runs text as a command)" in verdict.reason


def test_an_opaque_command_runs_in_auto_when_no_deny_rule_names_bash(tmp_path: Path) -> None:
    call = Call("bash", {"command": "eval ls"}, tmp_path, tmp_path)
    assert decide(Rules(), "auto", call).outcome == "allow"
    assert decide(Rules.parse([], [], ["read"]), "auto", call).outcome == "allow"


def test_wrappers_are_stripped_to_the_command_they_run() -> None:
    found = analyse("sudo -u bob timeout 5 env X=1 nice -n 3 /usr/bin/rm -rf x")
    assert [c.text for c in found.commands] == ["rm -rf x"]
    assert found.names() == ["rm"]
    assert found.wrappers[0].text.startswith("sudo -u bob")


def test_nested_shell_scripts_are_read_recursively() -> None:
    found = analyse("bash -c \"sh -c 'git status && rm -rf build'\"")
    assert [c.text for c in found.commands] == ["git status", "rm -rf build"]
    assert not found.opaque


def test_redirections_to_files_are_writes_and_descriptors_are_not() -> None:
    assert analyse("make > build.log 2>&1").writes == ("build.log",)
    assert analyse("make 2>/dev/null >&2").writes == ()
    assert analyse("echo > $OUT").writes == ("$OUT",)


def test_words_are_read_as_the_shell_reads_them() -> None:
    assert words("git  commit -m 'two words'") == ["git", "commit", "-m", "two words"]
