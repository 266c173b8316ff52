"""The SSE decoder follows the WHATWG event-stream rules, whatever the chunking."""

from __future__ import annotations

import random

from auger.llm.sse import SSEDecoder


def decode_all(body: bytes, cuts: list[int]) -> list[tuple[str, str]]:
    decoder = SSEDecoder()
    events = []
    start = 0
    for cut in [*sorted(cuts), len(body)]:
        events += decoder.feed(body[start:cut])
        start = cut
    return events


def test_named_and_unnamed_events() -> None:
    body = b'event: ping\ndata: {"a": 1}\n\ndata: plain\n\n'
    assert decode_all(body, []) == [("ping", '{"a": 1}'), ("message", "plain")]


def test_multi_line_data_comments_and_fields_without_space() -> None:
    body = b": keep-alive\nevent:x\ndata:one\ndata: two\nid: 7\nretry: 10\n\n"
    assert decode_all(body, []) == [("x", "one\ntwo")]


def test_crlf_and_cr_line_ends_even_split_between_chunks() -> None:
    body = b"event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n"
    expected = [("a", "1"), ("b", "2"), ("message", "3")]
    for cut in range(len(body) + 1):
        assert decode_all(body, [cut]) == expected


def test_an_event_cut_off_before_its_blank_line_is_not_dispatched() -> None:
    assert decode_all(b"data: whole\n\ndata: half", []) == [("message", "whole")]


def test_utf8_split_inside_a_character() -> None:
    body = "data: héllo wörld ✓\n\n".encode()
    for cut in range(len(body) + 1):
        assert decode_all(body, [cut]) == [("message", "héllo wörld ✓")]


def test_random_chunking_gives_the_same_events() -> None:
    body = b"".join(f'event: e{i}\ndata: {{"i": {i}}}\n\n'.encode() for i in range(200))
    whole = decode_all(body, [])
    rng = random.Random(7)
    for _ in range(20):
        assert decode_all(body, rng.sample(range(len(body)), 30)) == whole
    assert len(whole) == 200
