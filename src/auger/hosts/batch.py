"""`auger batch TASKS.jsonl`: runs a batch with a progress line; Ctrl-C stops it cleanly,
keeping every finished result, so the same command picks up where it stopped."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from auger.batch import Result, Task, load_tasks, read_results, summary

USAGE = (
    "auger batch TASKS.jsonl [--workers N] [--ray [ADDRESS]] [--results PATH] "
    "[--model PROVIDER/NAME] [--permission-mode MODE] | auger batch --summary RESULTS.jsonl"
)


TICK = 1.0
"""Seconds between live lines."""


def _parse(args: list[str]) -> argparse.Namespace:
    from auger.hosts.launch import parser

    p = parser("auger batch", USAGE, "Run many tasks, each in a fresh copy of its directory.")
    p.add_argument("tasks", nargs="?", help="a JSONL file of tasks")
    p.add_argument("--workers", type=int, default=4, metavar="N", help="tasks at once")
    p.add_argument(
        "--ray", nargs="?", const="", metavar="ADDRESS", help="run on Ray (no address: local)"
    )
    p.add_argument("--results", default="results.jsonl", metavar="PATH", help="results file")
    p.add_argument("--summary", metavar="PATH", help="print the table of a results file")
    p.add_argument("--model", help="the model of tasks that name none")
    p.add_argument(
        "--permission-mode",
        choices=("ask", "accept-edits", "read-only", "auto"),
        help="the permission mode of tasks that name none (nobody answers an ask)",
    )
    p.add_argument("--workdirs", metavar="DIR", help="where working copies are made")
    p.add_argument("--keep", action="store_true", help="keep the working copies")
    opts = p.parse_args(args)
    if opts.summary is None and opts.tasks is None:
        p.error("give a tasks file, or --summary RESULTS.jsonl")
    if opts.workers < 1:
        p.error("--workers must be at least 1")
    return opts


class Progress:
    """The batch as it runs: each task's result as it ends, and a live line — running, done,
    solved, failed, cost, time — at least once a second (redrawn in place on a terminal)."""

    def __init__(
        self, total: int, out: TextIO, workers: int = 1, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.out = out
        self.workers = workers
        self.live = out.isatty()
        self.done = self.solved = self.failed = 0
        self.cost = 0.0
        self.priced = True
        self._clock = clock
        self.started = clock()

    def add(self, result: Result) -> None:
        """Count one finished task and show its result."""
        self.done += 1
        if result.solved:
            self.solved += 1
        elif result.solved is False or result.stop_reason in ("error", "setup_failed"):
            self.failed += 1
        if result.cost is None:
            self.priced = self.priced and result.model_calls == 0
        else:
            self.cost += result.cost
        verdict = {True: "solved", False: "not solved", None: "no check"}[result.solved]
        why = f" — {result.error}" if result.error else ""
        line = f"[{self.done}/{self.total}] {result.id}: {verdict}, {result.stop_reason}{why}"
        self._write(line, keep=True)

    def tick(self) -> None:
        """Show the live line."""
        self._write(f"{self.bar()} {self.line()}", keep=not self.live)

    def _write(self, text: str, keep: bool) -> None:
        if self.live:
            self.out.write(f"\r\x1b[2K{text}\n" if keep else f"\r\x1b[2K{text}")
        else:
            self.out.write(f"{text}\n")
        self.out.flush()

    def bar(self, width: int = 20) -> str:
        """How far the batch has got, as a bar `width` cells wide."""
        filled = width * self.done // self.total if self.total else width
        return "█" * filled + "░" * (width - filled)

    def line(self) -> str:
        """The tasks running, the counts, the cost so far and the time taken."""
        cost = f"${self.cost:.4f}" if self.priced else f"≥ ${self.cost:.4f}"
        running = min(self.workers, self.total - self.done)
        took = self._clock() - self.started
        return (
            f"{running} running · {self.done}/{self.total} done · {self.solved} solved · "
            f"{self.failed} failed · {cost} · {took:.0f}s"
        )

    def end(self) -> None:
        """Leave the final live line in place."""
        self.tick()
        if self.live:
            self.out.write("\n")
            self.out.flush()


def main(args: list[str]) -> int:
    """`auger batch`'s entry point; returns the exit status."""
    opts = _parse(args)
    if opts.summary is not None:
        return _summary(Path(opts.summary))
    try:
        tasks, errors = load_tasks(opts.tasks)
    except OSError as exc:
        sys.stderr.write(f"auger: cannot read {opts.tasks}: {exc.strerror or exc}\n")
        return 2
    for error in errors:
        sys.stderr.write(f"auger: {opts.tasks}: {error} (skipped)\n")
    results = Path(opts.results)
    finished = {r.id for r in read_results(results)}
    pending = [t for t in tasks if t.id not in finished]
    if len(pending) < len(tasks):
        sys.stderr.write(
            f"auger: {len(tasks) - len(pending)} of {len(tasks)} tasks already in {results}\n"
        )
    progress = Progress(len(pending), sys.stderr, opts.workers)
    status = asyncio.run(_run(opts, tasks, results, progress))
    progress.end()
    if status == 130:
        left = progress.total - progress.done
        sys.stderr.write(
            f"auger: interrupted — {progress.done} finished and kept in {results}, "
            f"{left} left; run the same command to finish them\n"
        )
        return status
    if status == 0:
        sys.stdout.write(summary(read_results(results)))  # in task order: the batch rewrote it
    return status


async def _run(
    opts: argparse.Namespace, tasks: list[Task], results: Path, progress: Progress
) -> int:
    from auger.batch import RayUnavailable, stream

    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    assert me is not None
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, me.cancel)
    results_stream = stream(
        tasks,
        workers=opts.workers,
        engine="local" if opts.ray is None else "ray",
        address=opts.ray or None,
        results=results,
        model=opts.model,
        permission_mode=opts.permission_mode,
        workdirs=opts.workdirs,
        keep=opts.keep,
    )
    ticking = asyncio.ensure_future(_tick(progress))
    try:
        async for result in results_stream:
            progress.add(result)
    except asyncio.CancelledError:
        await results_stream.aclose()
        return 130
    except RayUnavailable as exc:
        sys.stderr.write(f"auger: {exc}\n")
        return 2
    except OSError as exc:  # the results file or the sessions beside it
        sys.stderr.write(f"auger: cannot write {exc.filename or results}: {exc.strerror}\n")
        return 1
    finally:
        ticking.cancel()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return 0


async def _tick(progress: Progress) -> None:
    """The live line, once a second while tasks run."""
    while progress.done < progress.total:
        progress.tick()
        await asyncio.sleep(TICK)


def _summary(path: Path) -> int:
    if not path.exists():
        sys.stderr.write(f"auger: no results file {path}\n")
        return 2
    sys.stdout.write(summary(read_results(path)))
    return 0
