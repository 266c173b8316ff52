"""Repairs that would destroy something are refused, and the model is told what to send."""

from __future__ import annotations

import json

import pytest

from auger.llm.arguments import malformed, parse_arguments, python_strings, repair_loss, repaired

# what the evaluation's model wrote to add a function to textutils.py
TRIPLE = '{"path": "textutils.py", "content": """\ndef slugify(text):\n    """Slug."""\n"""}'


def test_the_recorded_triple_quoted_write_repairs_into_a_file_emptied() -> None:
    value = repaired(TRIPLE)
    assert value["content"] == ""  # what json-repair makes of it: the write would erase the file
    assert "gained the key" in (repair_loss(TRIPLE, value) or "")
    assert "`content` lost its content" in (repair_loss(TRIPLE, value) or "")


def test_a_value_of_another_shape_is_a_loss() -> None:
    raw = '{"command": ls -la, "timeout": 5}'
    assert repair_loss(raw, repaired(raw)) == "`command` changed shape"


def test_a_plain_repair_loses_nothing() -> None:
    for raw in ("{'path': 'a.py', 'limit': 5,}", '{"pattern": "foo"', '{"a": [1, {"b": ""}]}'):
        assert repair_loss(raw, repaired(raw)) is None, raw


def test_unambiguous_triple_quotes_become_json_strings() -> None:
    raw = '{"path": "n.txt", "content": """\\\none "two"\nthree""", "mode": \'\'\'x\'\'\'}'
    assert json.loads(python_strings(raw) or "") == {
        "path": "n.txt", "content": 'one "two"\nthree', "mode": "x"
    }  # fmt: skip
    assert python_strings('{"a": 1}') == '{"a": 1}'


@pytest.mark.parametrize(
    "raw",
    [TRIPLE, '{"content": """one"""x}', '{"content": """odd}', '["""a""", 1]'],
)
def test_triple_quotes_that_are_not_plainly_one_value_are_left_alone(raw: str) -> None:
    assert python_strings(raw) is None


def test_the_model_is_told_how_to_resend() -> None:
    assert malformed(TRIPLE).startswith(
        "your JSON used Python triple quotes; send `content` as one JSON string"
    )
    with pytest.raises(ValueError, match="triple quotes; send `content` as one JSON string"):
        parse_arguments(TRIPLE)
    with pytest.raises(ValueError, match=r"lossy \(`command` changed shape\)"):
        parse_arguments('{"command": ls -la}')
