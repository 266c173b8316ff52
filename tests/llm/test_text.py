"""Escaping what was not UTF-8."""

from __future__ import annotations

import os

from auger.llm.text import decode_input, escape_deep, escape_surrogates


def test_an_undecodable_byte_becomes_its_hex_escape() -> None:
    assert escape_surrogates(os.fsdecode(b"caf\xe9.txt")) == "caf\\xe9.txt"
    assert escape_surrogates("plain é") == "plain é"


def test_other_lone_surrogates_become_unicode_escapes() -> None:
    assert escape_surrogates("a\ud800b") == "a\\ud800b"


def test_escape_deep_reaches_keys_and_nested_values() -> None:
    bad = os.fsdecode(b"\xff")
    assert escape_deep({bad: [bad, 1, {"k": bad}]}) == {"\\xff": ["\\xff", 1, {"k": "\\xff"}]}


def test_input_bytes_decode_as_utf8_with_the_rest_escaped() -> None:
    assert decode_input(b"caf\xe9 caf\xc3\xa9") == "caf\\xe9 café"
