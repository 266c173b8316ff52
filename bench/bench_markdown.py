"""Benchmark of the terminal's Markdown while it streams: CPU per delta on long replies.

Run: .venv/bin/python bench/bench_markdown.py [--runs N]

Each reply is fed word by word as `text_delta` records to the terminal's renderer (colour on,
100 cells, writing to nowhere), taking the finished lines after every delta (the worst case) and
after every 10 (about what a frame sees while a fast model streams). The shapes are the ones
that could make drawing quadratic: a block that stays open for a long time is the one the
renderer has to look at again as it grows (a long list, a long code block, a long table, a
paragraph of many lines), beside a long reply of many short blocks. Target: under 20 µs a delta
for each (the terminal's own target, bench_terminal.py).

Prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from bench_terminal import BLOCKS, render_cpu  # the terminal benchmark's reply and timing

TARGET = 20e-6


def mixed() -> str:
    """Many short blocks: paragraphs, lists, headings, code, tables (about 5,000 words)."""
    return "\n\n".join(BLOCKS * 40)


def long_list() -> str:
    """One ordered list of 400 items, some with a nested item."""
    items = []
    for n in range(1, 401):
        items.append(f"{n}. item {n} with **bold** words and `code`, then a few more words")
        if n % 5 == 0:
            items.append("   - a nested point under it")
    return "\n".join(items)


def long_code() -> str:
    """One fenced Python block of 2,000 lines."""
    body = "\n".join(f"    total += value_{n} * {n}  # step {n}" for n in range(2000))
    return f"```python\ndef f():\n{body}\n```"


def long_table() -> str:
    """One table of 300 rows."""
    rows = [f"| `tool_{n}` | {n * 7} ms | **ok** |" for n in range(300)]
    return "| name | time | state |\n|---|--:|---|\n" + "\n".join(rows)


def long_paragraph() -> str:
    """One paragraph of 300 source lines (soft breaks, no blank line)."""
    return "\n".join(f"line {n} of a paragraph with *some* emphasis in it" for n in range(300))


SHAPES = {
    "mixed short blocks": mixed,
    "one list of 400 items": long_list,
    "one code block of 2,000 lines": long_code,
    "one table of 300 rows": long_table,
    "one paragraph of 300 lines": long_paragraph,
}


def deltas_of(text: str) -> list[str]:
    """`text` as word-sized deltas, the way a model streams it."""
    out: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch == " " and i > start:
            out.append(text[start:i])
            start = i
    out.append(text[start:])
    return out


def main() -> None:
    """Time each shape and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="renders of each reply to time")
    args = parser.parse_args()

    print(f"{os.cpu_count()} CPUs · Python {sys.version.split()[0]} · runs: {args.runs}\n")
    print("| reply | deltas | per delta, output every delta | every 10 deltas | target |")
    print("|---|---|---|---|---|")
    for name, make in SHAPES.items():
        deltas = deltas_of(make())
        render_cpu(deltas, 1)  # warm up: imports, the lexer
        worst = statistics.median(render_cpu(deltas, 1) for _ in range(args.runs))
        framed = statistics.median(render_cpu(deltas, 10) for _ in range(args.runs))
        verdict = "✓" if max(worst, framed) < TARGET else "✗"
        print(
            f"| {name} | {len(deltas):,} | {worst * 1e6:.1f} µs | {framed * 1e6:.1f} µs | "
            f"≤ {TARGET * 1e6:.0f} µs {verdict} |"
        )


if __name__ == "__main__":
    main()
