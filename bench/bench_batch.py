"""Benchmark of `auger batch`: 100 scripted tasks on 8 workers against the time of the slowest
single task.

Run: .venv/bin/python bench/bench_batch.py [--tasks N] [--workers N] [--ray]

Each task is a real agent turn through the scripted provider: three model calls, each waiting
like a model does (0.05, 0.1 or 0.2 s, by task), that write a file, `cat` it with `bash`, and
finish; its check tests the file. The slowest kind of task is first run alone (worst of 3);
the target is that N tasks on W workers finish within 3 × slowest × N / W. Also timed: the same
batch through the `auger batch` command, and (with --ray) on a local Ray cluster of W CPUs.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from auger.batch import Task, run

DELAYS = (0.05, 0.1, 0.2)


def _script(delay: float) -> list[dict[str, Any]]:
    usage = {"input": 1000, "output": 50}
    return [
        {
            "parts": [
                {"delay": delay},
                {"tool": "write", "args": {"path": "out.txt", "content": "ok\n"}},
            ],
            "usage": usage,
        },
        {
            "parts": [{"delay": delay}, {"tool": "bash", "args": {"command": "cat out.txt"}}],
            "usage": usage,
        },
        {"parts": [{"delay": delay}, {"text": "done"}], "usage": usage},
    ]


def _home(tmp: Path) -> dict[str, str]:
    home = tmp / "auger-home"
    home.mkdir()
    providers = {}
    for delay in DELAYS:
        name = f"d{int(delay * 1000)}"
        script = home / f"{name}.json"
        script.write_text(json.dumps(_script(delay)))
        providers[name] = {"api": "scripted", "script": str(script)}
    (home / "settings.json").write_text(json.dumps({"providers": providers}))
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "AUGER_HOME": str(home),
        "RAY_AUTH_MODE": "disabled",
    }


def _tasks(count: int) -> list[Task]:
    return [
        Task(
            f"t{i:03d}",
            "write out.txt and show it",
            model=f"d{int(DELAYS[i % len(DELAYS)] * 1000)}/m",
            check="grep -qx ok out.txt",
            permission_mode="auto",
        )
        for i in range(count)
    ]


def _timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=100)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--ray", action="store_true", help="also time a local Ray cluster")
    opts = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="auger-bench-batch-"))
    env = _home(tmp)
    slowest = Task(
        "slowest",
        "write out.txt and show it",
        model="d200/m",
        check="grep -qx ok out.txt",
        permission_mode="auto",
    )

    def alone(n: int) -> float:
        return _timed(lambda: run([slowest], env=env, results=tmp / f"single-{n}.jsonl"))[0]

    alone(0)  # warm: imports and first-use costs are not a task's time
    singles = [alone(n) for n in (1, 2, 3)]
    single = max(singles)
    tasks = _tasks(opts.tasks)
    target = 3 * single * opts.tasks / opts.workers
    wall, results = _timed(
        lambda: run(tasks, workers=opts.workers, env=env, results=tmp / "api" / "results.jsonl")
    )
    solved = sum(1 for r in results if r.solved)
    tasks_file = tmp / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks))
    command = [
        sys.executable,
        "-m",
        "auger",
        "batch",
        str(tasks_file),
        "--workers",
        str(opts.workers),
    ]
    command += ["--results", str(tmp / "cli" / "results.jsonl")]
    cli, done = _timed(lambda: subprocess.run(command, env=env, capture_output=True, text=True))
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return 1
    delays = ", ".join(f"{d:g}" for d in DELAYS)
    print(
        f"{opts.tasks} tasks · {opts.workers} workers · 3 model calls of {delays} s by task · "
        f"solved {solved}/{len(results)} · python {sys.version.split()[0]} · "
        f"{os.cpu_count()} cores\n"
    )
    batch = f"{opts.tasks} tasks, {opts.workers} workers"
    rows = [
        ("slowest single task (worst of 3)", single, False),
        (f"{batch} (Python API)", wall, True),
        (f"{batch} (`auger batch`)", cli, True),
    ]
    if opts.ray:
        import ray

        ray.init(num_cpus=opts.workers, include_dashboard=False, log_to_driver=False)
        try:
            on_ray, _ = _timed(
                lambda: run(
                    tasks,
                    workers=opts.workers,
                    env=env,
                    engine="ray",
                    results=tmp / "ray" / "results.jsonl",
                )
            )
        finally:
            ray.shutdown()
        rows.append((f"{batch} (Ray, local, {opts.workers} CPUs)", on_ray, True))
    print("| measure | wall | target |\n|---|---|---|")
    for label, seconds, judged in rows:
        mark = (" ✓" if seconds <= target else " ✗") if judged else ""
        print(f"| {label} | {seconds:.2f} s{mark} | {f'≤ {target:.2f} s' if judged else '—'} |")
    print(f"\ntarget: 3 × {single:.2f} s × {opts.tasks}/{opts.workers} = {target:.2f} s")
    shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
