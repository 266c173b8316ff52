"""Run the evaluation suite (bench/tasks/) with any configured model through `auger batch`.

    python bench/eval.py [--model PROVIDER/NAME] [--workers N] [--ray [ADDRESS]] [--results PATH]

Prints the solve rate, tokens, cost and time; the per-task table follows. The results file
(default: a new temp dir) is resumable: rerun with the same --results to finish a stopped run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "tasks" / "tasks.jsonl"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", help="PROVIDER/NAME (default: the configured model)")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS")
    p.add_argument("--results", type=Path)
    p.add_argument("--tasks", type=Path, default=SUITE, help="another suite")
    opts = p.parse_args()
    results = opts.results or Path(tempfile.mkdtemp(prefix="auger-eval-")) / "results.jsonl"
    command = [sys.executable, "-m", "auger", "batch", str(opts.tasks), "--results", str(results)]
    command += ["--workers", str(opts.workers)]
    if opts.model:
        command += ["--model", opts.model]
    if opts.ray is not None:
        command += ["--ray", *([opts.ray] if opts.ray else [])]
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if done.returncode not in (0, 130) or not results.exists():
        sys.stderr.write(f"eval: auger batch exited {done.returncode}\n")
        return done.returncode or 1
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    checked = [r for r in rows if r["solved"] is not None]
    solved = sum(1 for r in checked if r["solved"])
    tokens_in = sum(r["usage"]["input_tokens"] for r in rows)
    tokens_out = sum(r["usage"]["output_tokens"] for r in rows)
    costs = [r["cost"] for r in rows if r["model_calls"]]
    cost = "unknown (unpriced model)" if None in costs else f"${sum(costs):.4f}"
    rate = 100 * solved / len(checked) if checked else 0.0
    print(f"model       {opts.model or '(configured)'}")
    print(f"solved      {solved}/{len(checked)} ({rate:.0f}%)")
    print(f"tokens      {tokens_in:,} in / {tokens_out:,} out")
    print(f"cost        {cost}")
    print(f"time        {wall:.1f} s wall, {sum(r['duration'] for r in rows):.1f} s summed")
    print(f"results     {results}\n")
    sys.stdout.write(done.stdout)
    return 0 if done.returncode == 0 else done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
