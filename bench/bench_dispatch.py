"""Dispatch benchmark: what the bus costs per event, and what extensions add to start-up.

Run: .venv/bin/python bench/bench_dispatch.py [--runs N]

Measures, on this machine: one `Bus.emit` with no handlers, with one plain handler, and with
ten handlers returning `None` (plain, `(event, ctx)` and async ones) — plain handlers run in a
worker thread, so one that never returns cannot hold the loop: the rows with plain handlers are
that thread hop (consecutive plain handlers share one); `Runtime(...)` construction with 30 small
extension files against none (in-process, bundled tools loaded in both); and the same
difference in `auger -p` wall time, the 30 files in `$AUGER_HOME/extensions`. Medians of
`--runs` runs. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import table

from auger.bus import Bus, Handler
from auger.events import ToolCallEvent
from auger.extensions.source import from_file
from auger.llm.scripted import ScriptedProvider
from auger.runtime import Runtime

TARGETS = {"none": 1e-6, "ten": 50e-6, "startup": 0.050}
EMITS = 20_000
EXTENSIONS = 30

SMALL_EXTENSION = '''"""Small extension number {n}: a tool and two handlers."""


def note_{n}(text: str) -> str:
    """Say the note back."""
    return text


def extension(g):
    g.tool(note_{n})
    g.on("turn_start", lambda event: None)
    g.on("tool_call", lambda event: None)
'''


def plain(event: Any) -> None:
    """A handler that looks and changes nothing."""


def with_ctx(event: Any, ctx: Any) -> None:
    """The same, taking `ctx`."""


async def awaited(event: Any) -> None:
    """The same, as a coroutine."""


def per_emit(handlers: list[Callable[..., Any]], runs: int) -> float:
    """Median seconds per `Bus.emit("tool_call", …)` with `handlers` registered."""
    registry = {"tool_call": [Handler.of(fn, "bench") for fn in handlers]}
    bus = Bus(registry, lambda message, level: None)
    event = ToolCallEvent("bash", {"command": "ls"}, "call_1")

    async def timed() -> float:
        emit = bus.emit
        started = time.perf_counter()
        for _ in range(EMITS):
            await emit(event)
        return (time.perf_counter() - started) / EMITS

    return statistics.median(asyncio.run(timed()) for _ in range(runs))


def construct(files: list[Path], home: Path, cwd: Path) -> float:
    """Seconds to build a Runtime loading `files`."""
    started = time.perf_counter()
    Runtime(
        provider=ScriptedProvider(),
        env={},
        home=home,
        cwd=cwd,
        settings={},
        extensions=[from_file(f) for f in files],
    )
    return time.perf_counter() - started


def wall(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall seconds of one successful run of `cmd`."""
    started = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def paired(runs: int, measure: Callable[[bool], float]) -> tuple[float, float]:
    """Medians of `measure(False)` and `measure(True)`, alternated so drift hits both alike."""
    without, with_ = [], []
    for _ in range(runs):
        without.append(measure(False))
        with_.append(measure(True))
    return statistics.median(without), statistics.median(with_)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    none = per_emit([], runs)
    one = per_emit([plain], runs)
    ten = per_emit([plain] * 10, runs)
    ten_ctx = per_emit([with_ctx] * 10, runs)
    ten_async = per_emit([awaited] * 10, runs)

    auger = str(Path(sys.executable).parent / "auger")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cwd, bare, loaded = root / "project", root / "bare", root / "loaded"
        folder = loaded / "extensions"
        for d in (cwd, bare, folder):
            d.mkdir(parents=True)
        files = [folder / f"small_{n}.py" for n in range(EXTENSIONS)]
        for n, path in enumerate(files):
            path.write_text(SMALL_EXTENSION.format(n=n))
        construct(files, bare, cwd)  # compile the files once, as a second start-up would find
        rt_none, rt_thirty = paired(runs, lambda on: construct(files if on else [], bare, cwd))

        script = root / "script.json"
        script.write_text(json.dumps([{"text": "ok"}]))
        settings = {
            "model": "s/test",
            "providers": {"s": {"api": "scripted", "script": str(script)}},
        }
        for home in (bare, loaded):
            (home / "settings.json").write_text(json.dumps(settings))
        env = {"PATH": os.environ["PATH"], "HOME": tmp}

        def cli(on: bool) -> float:
            return wall([auger, "-p", "hi"], env | {"AUGER_HOME": str(loaded if on else bare)}, cwd)

        cli(True)
        cli_none, cli_thirty = paired(runs, cli)

    rows = [
        ("`Bus.emit`, no handlers", none, "none", "µs", 1e6),
        ("`Bus.emit`, 1 plain handler (a thread hop)", one, None, "µs", 1e6),
        ("`Bus.emit`, 10 handlers returning None", ten, "ten", "µs", 1e6),
        ("`Bus.emit`, 10 `(event, ctx)` handlers", ten_ctx, None, "µs", 1e6),
        ("`Bus.emit`, 10 async handlers", ten_async, None, "µs", 1e6),
        ("`Runtime(...)`, no extension files", rt_none, None, "ms", 1e3),
        (
            f"`Runtime(...)`: {EXTENSIONS} extension files add",
            rt_thirty - rt_none,
            "startup",
            "ms",
            1e3,
        ),
        ("`auger -p hi` wall, no extension files", cli_none, None, "ms", 1e3),
        (
            f"`auger -p hi` wall: {EXTENSIONS} extension files add",
            cli_thirty - cli_none,
            "startup",
            "ms",
            1e3,
        ),
    ]
    print(f"runs: {runs} · python {sys.version.split()[0]} · {os.cpu_count()} cores\n")
    print(table(rows, TARGETS, digits=2))


if __name__ == "__main__":
    main()
