"""Sandbox benchmark: what the sandbox adds to one `bash` call, and what the shell analysis
costs a permission decision.

Run: .venv/bin/python bench/bench_sandbox.py [--runs N]

Measures, on this machine: the `echo hi` round trip through the real `bash` tool (spawn, wait,
output) with the sandbox off and with `workspace-write` (bwrap with a user namespace, every
capability dropped, the seccomp filter, the protected-path mounts); the first analysis of a
command line (tree-sitter's parser loaded), and one decision on a compound line after that.
Medians of `--runs` runs. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from report import table

from auger.extensions.permissions.policy import Rules, decide
from auger.extensions.permissions.rules import Call
from auger.tools.base import ToolContext
from auger.tools.bash import bash
from auger.tools.sandbox import Sandbox, find_bwrap, probe

TARGETS = {"overhead": 0.050, "decision": 200e-6}
LINE = "cd src && FOO=1 timeout 60 pytest -q tests/ 2>&1 | tail -5; git status --short"


async def _round_trip(ctx: ToolContext, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        out = await bash("echo hi", ctx=ctx)
        times.append(time.perf_counter() - started)
        assert str(out).strip() == "hi", out
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    problem = probe(find_bwrap(os.environ))
    if problem is not None:
        sys.exit(f"no sandbox here: {problem}")
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        env = {"PATH": os.environ.get("PATH", os.defpath)}
        off = ToolContext(project, env, sandbox=Sandbox("off", project))
        box = Sandbox("workspace-write", project, explicit=True, bwrap=find_bwrap(env))
        boxed = ToolContext(project, env, sandbox=box)
        plain = asyncio.run(_round_trip(off, runs))
        sandboxed = asyncio.run(_round_trip(boxed, runs))
        box.close()
    started = time.perf_counter()
    call = Call("bash", {"command": LINE}, Path("/p"), Path("/h"))
    decide(Rules(), "ask", call)
    first = time.perf_counter() - started
    rules = Rules.parse(
        ["bash(git status:*)", "bash(pytest:*)", "bash(tail:*)"], [], ["bash(rm:*)"]
    )
    decisions = []
    for _ in range(runs * 20):
        started = time.perf_counter()
        decide(rules, "ask", call)
        decisions.append(time.perf_counter() - started)
    rows = [
        ("`echo hi` through `bash`, sandbox off", plain, None, "ms", 1e3),
        ("`echo hi` through `bash`, workspace-write", sandboxed, None, "ms", 1e3),
        ("what the sandbox adds", sandboxed - plain, "overhead", "ms", 1e3),
        ("first shell analysis (parser loaded)", first, None, "ms", 1e3),
        ("one decision on a 6-command line", statistics.median(decisions), "decision", "µs", 1e6),
    ]
    print(table(rows, TARGETS))


if __name__ == "__main__":
    main()
