"""Text calls recovered as they stream: the cost of holding a long call written as text.

Run: .venv/bin/python bench/bench_textcalls.py

A `write` of a 28 KB file, written as a bare JSON reply, a fenced JSON block and a
`<tool_call>` tag, cut into llama.cpp-style token deltas (≈ 12,800 of them), through
`auger.llm.textstream.recover`: the time for the whole response, which must stay linear in its
length (each held character read once), and the call found.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from report import grid

from auger.llm.provider import ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    Record,
    TextDelta,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.textstream import recover
from auger.llm.usage import Usage
from support.llamacpp import tokens

TARGET_MS = 100


async def _timed(text: str) -> tuple[float, list[str]]:
    async def source() -> AsyncIterator[Record]:
        for piece in tokens(text):
            yield TextDelta(piece)
        yield TextDone(text)
        yield TokenUsageDone(Usage())
        yield FinishReasonDone("stop", "stop")

    started = time.perf_counter()
    out = [r async for r in recover(source(), (ToolSpec("write", ""),))]
    return time.perf_counter() - started, [r.name for r in out if isinstance(r, ToolCallDone)]


def main() -> None:
    code = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(800))
    call = {"name": "write", "arguments": {"path": "a.py", "content": code}}
    shapes = {
        "bare JSON": json.dumps(call),
        "fenced": f"Writing it.\n```json\n{json.dumps(call, indent=2)}\n```",
        "tagged": f"<tool_call>\n{json.dumps(call)}\n</tool_call>",
    }
    rows = []
    for label, text in shapes.items():
        seconds, calls = asyncio.run(_timed(text))
        mark = "✓" if seconds * 1000 <= TARGET_MS and calls == ["write"] else "✗"
        took = f"{seconds * 1000:.0f} ms {mark}"
        rows.append([label, f"{len(text):,}", f"{len(tokens(text)):,}", took, ", ".join(calls)])
    print(f"python {sys.version.split()[0]} · target ≤ {TARGET_MS} ms a response\n")
    print(grid(["written as", "chars", "deltas", "recovered in", "calls"], rows))


if __name__ == "__main__":
    main()
