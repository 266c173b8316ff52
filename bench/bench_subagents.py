"""Sub-agent cost: memory and start-up per child, in-process.

Run: .venv/bin/python bench/bench_subagents.py [--children N] [--runs N]

One `task` call starts N children at once (the per-call cap raised to N for the benchmark),
against a provider that holds every child's first request until all N have asked. Start-up
per child: from the call's `before_tool_call` to the last child's first request, over N
(children are set up one after another on one event loop, so this is each one's set-up cost).
Memory per child (on separate, traced runs): what tracemalloc counts as allocated while all N
are alive and waiting, above what was allocated before the call, over N. Medians of --runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from report import table

import auger.extensions.subagents as subagents
from auger.llm.provider import Exchange, Request
from auger.llm.records import Record
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import BeforeToolCall
from auger.runtime import Runtime

TARGETS = {"memory": 1_000_000, "startup": 0.005}


class Gate(ScriptedProvider):
    """Answers the parent from its script; holds each child's first request until all asked."""

    def __init__(self, children: int) -> None:
        tasks = [{"prompt": f"child {n}"} for n in range(children)]
        super().__init__([Reply.of(Call("task", {"tasks": tasks})), "done"])
        self.children = children
        self.arrived: list[float] = []
        self.memory = 0
        self.all_in = asyncio.Event()

    async def stream(self, request: Request, exchange: Exchange) -> AsyncIterator[Record]:
        if not request.system.startswith("You are a sub-agent"):
            async for record in super().stream(request, exchange):
                yield record
            return
        self.arrived.append(time.perf_counter())
        if len(self.arrived) == self.children and tracemalloc.is_tracing():
            self.memory = tracemalloc.get_traced_memory()[0]
        if len(self.arrived) == self.children:
            self.all_in.set()
        await self.all_in.wait()
        async for record in ScriptedProvider(["ok"]).stream(request, exchange):
            yield record


async def one_run(children: int, trace: bool) -> tuple[float, float]:
    """(bytes, seconds) per child of one call with `children` children; memory only when
    tracing (tracing slows everything down, so start-up is timed on runs without it)."""
    subagents.MAX_TASKS = children
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        cwd.mkdir()
        provider = Gate(children)
        runtime = Runtime(
            provider=provider,
            home=home,
            cwd=cwd,
            env={"HOME": tmp},
            settings={"permissions": {"mode": "auto"}},
            clock=time.perf_counter,
        )
        if trace:
            tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        started = 0.0
        async for record in runtime.prompt("go"):
            if isinstance(record, BeforeToolCall):
                started = record.at
        tracemalloc.stop()
        await runtime.close()
    assert len(provider.arrived) == children, "not every child asked"
    return (provider.memory - base) / children, (max(provider.arrived) - started) / children


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    memory = statistics.median(
        asyncio.run(one_run(args.children, True))[0] for _ in range(args.runs)
    )
    startup = statistics.median(
        asyncio.run(one_run(args.children, False))[1] for _ in range(args.runs)
    )
    rows: list[Any] = [
        ("memory per child", memory, "memory", "KB", 1e-3),
        ("start-up per child", startup, "startup", "ms", 1e3),
    ]
    print(f"{args.children} children in one call, median of {args.runs} runs\n")
    print(table(rows, TARGETS, digits=2))
    sys.exit(0 if memory <= TARGETS["memory"] and startup <= TARGETS["startup"] else 1)


if __name__ == "__main__":
    main()
