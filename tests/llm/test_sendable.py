"""What request builders send for earlier messages."""

from __future__ import annotations

import json

import pytest

from auger.llm.sendable import CallIds, tool_arguments, tool_input


@pytest.mark.parametrize(
    ("raw", "sent"),
    [
        ('{"path": "a.py"}', '{"path": "a.py"}'),
        ('{"path": "a.py"', "{}"),  # cut short
        ("[1, 2]", "{}"),  # JSON, but not an object
        ("", "{}"),
    ],
)
def test_arguments_a_server_can_parse(raw: str, sent: str) -> None:
    assert tool_arguments(raw) == sent
    assert tool_input(raw) == json.loads(sent)


def test_call_ids_map_the_same_id_the_same_way_and_never_two_ids_to_one() -> None:
    ids = CallIds("anthropic")
    assert ids("a:b") == ids("a:b") == "a_b"
    assert ids("a.b") != ids("a:b")  # both would be "a_b"
    mistral = CallIds("mistral")
    assert mistral("abcDEF123") == "abcDEF123"
    assert len(mistral("call_0")) == 9 and mistral("call_0") != mistral("call_1")
    assert CallIds("any")("x|y") == "x|y"
