"""Truncation shared by the tools: head or tail by lines and bytes, long lines, the notices."""

from __future__ import annotations

import sys
from dataclasses import dataclass

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
MAX_LINE_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Cut:
    """A text cut to fit: the kept text, how many whole lines it holds, and out of how many."""

    text: str
    kept_lines: int
    total_lines: int
    truncated: bool


def head(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Cut:
    """The first whole lines of `text` (no trailing newline) that fit both limits."""
    return _cut(text, max_lines, max_bytes, from_end=False)


def tail(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Cut:
    """The last whole lines of `text` (no trailing newline) that fit both limits."""
    return _cut(text, max_lines, max_bytes, from_end=True)


def _cut(text: str, max_lines: int, max_bytes: int, *, from_end: bool) -> Cut:
    count = text.count("\n") + 1
    if count <= max_lines and len(text) * 4 <= max_bytes:  # fits whatever the encoding
        return Cut(text, count, count, False)
    lines = text.split("\n")
    ordered = reversed(lines) if from_end else iter(lines)
    kept = size = 0
    for line in ordered:
        size += len(line.encode()) + (1 if kept else 0)
        if kept == max_lines or size > max_bytes:
            break
        kept += 1
    if kept == len(lines):
        return Cut(text, kept, kept, False)
    if kept == 0:
        # One line longer than the byte budget: keep the part of it nearest the cut side.
        part = clip_bytes(lines[-1 if from_end else 0], max_bytes, from_end)
        return Cut(part, 0, len(lines), True)
    chosen = lines[-kept:] if from_end else lines[:kept]
    return Cut("\n".join(chosen), kept, len(lines), True)


def clip_bytes(text: str, max_bytes: int, from_end: bool = False) -> str:
    """At most `max_bytes` of `text`'s UTF-8, from its start or its end, on a character edge."""
    data = text.encode()
    if len(data) <= max_bytes:
        return text
    part = data[-max_bytes:] if from_end else data[:max_bytes]
    return part.decode(errors="ignore")


def clip_line(line: str, max_chars: int = MAX_LINE_CHARS) -> str:
    """`line` cut to `max_chars` characters, with a marker saying how much was dropped."""
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]}… [line truncated: {len(line) - max_chars} more chars]"


def format_size(size: int) -> str:
    """A byte count for people: `512 B`, `12.3 KB`, `4.0 MB`."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def limit_notice(count: int, what: str, hint: str) -> str:
    """The notice for a result capped at `count` items."""
    return f"[{count} {what} limit reached. Use limit={count * 2} for more, or {hint}.]"


def capped(text: str, limit: int, over: bool, what: str, hint: str) -> str:
    """A search result: `text` cut at `MAX_BYTES`, then a notice for that cut, and one for a
    result capped at `limit` items when `over`; `hint` says how to narrow it."""
    cut = head(text, sys.maxsize, MAX_BYTES)
    notices = []
    if cut.truncated:
        notices.append(f"[Output truncated at {format_size(MAX_BYTES)}. {hint.capitalize()}.]")
    if over:
        notices.append(limit_notice(limit, what, hint))
    return "\n\n".join([cut.text, *notices])
