"""Start-up, side by side with Codex: process start to the first request a local server sees.

Run: .venv/bin/python bench/bench_startup.py [--runs N] [--node-bin DIR]

Both harnesses speak the OpenAI Responses format to the same scripted 127.0.0.1 server, runs
interleaved so both see the same machine load; each answers one short reply. Wall times
need a quiet machine (the load average is printed); the CPU row does not. Codex
(`@openai/codex` from npm) is found on PATH or in --node-bin; without it the benchmark says
so and measures auger alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import replies  # noqa: E402
from bench_prompt import codex_config  # noqa: E402
from report import grid  # noqa: E402

from support.server import FakeServer  # noqa: E402

TARGET_RATIO = 0.9


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, float]:
    """Start time, wall seconds, peak RSS bytes and CPU seconds of one run that must succeed."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[0]} exited {os.waitstatus_to_exitcode(status)}")
    return started, wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


class Harness:
    """How to run one harness's `--version` and a one-reply prompt."""

    def __init__(self, name: str, version: list[str], prompt: list[str], env: dict[str, str]):
        self.name = name
        self.version = version
        self.prompt = prompt
        self.env = env
        self.first: list[float] = []
        self.walls: list[float] = []
        self.versions: list[float] = []
        self.rss: list[int] = []
        self.cpu: list[float] = []

    def once(self, server: FakeServer, cwd: Path) -> None:
        self.versions.append(timed(self.version, self.env, cwd)[1])
        server.queue(replies.text("responses", "Hello."))
        seen = len(server.requests)
        started, wall, rss, cpu = timed(self.prompt, self.env, cwd)
        self.first.append(server.requests[seen].received - started)
        self.walls.append(wall)
        self.rss.append(rss)
        self.cpu.append(cpu)


def auger(server: FakeServer, tmp: Path, command: str) -> Harness:
    home = tmp / "auger-home"
    home.mkdir()
    settings = {"model": "openai/test-model"}
    (home / "settings.json").write_text(json.dumps(settings))
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "AUGER_HOME": str(home),
        "OPENAI_API_KEY": "sk-bench",
        "OPENAI_BASE_URL": server.url + "/v1",
    }
    return Harness("auger", [command, "--version"], [command, "-p", "Say hello."], env)


def codex(command: str, server: FakeServer, tmp: Path) -> Harness:
    home = tmp / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(codex_config(server))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "CODEX_HOME": str(home)}
    prompt = [command, "exec", "--skip-git-repo-check", "Say hello."]
    return Harness("Codex", [command, "--version"], prompt, env)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--node-bin", type=Path, help="where npm put `codex`")
    parser.add_argument(
        "--auger",
        default=str(Path(sys.executable).parent / "auger"),
        help="the auger command to time (another checkout's, to compare builds)",
    )
    args = parser.parse_args()
    found = None
    if args.node_bin is not None and (args.node_bin / "codex").exists():
        found = str(args.node_bin / "codex")
    found = found or shutil.which("codex")
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as server:
        root = Path(tmp)
        cwd = root / "project"
        cwd.mkdir()
        (root / "a").mkdir()
        harnesses = [auger(server, root / "a", args.auger)]
        if found:
            (root / "c").mkdir()
            harnesses.append(codex(found, server, root / "c"))
        for harness in harnesses:  # a warm-up run each: disk caches, not start-up, are cold
            harness.once(server, cwd)
            for kept in (harness.first, harness.walls, harness.versions, harness.cpu):
                kept.clear()
        for _ in range(args.runs):
            for harness in harnesses:
                harness.once(server, cwd)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"runs: {args.runs} · python {sys.version.split()[0]} · {os.cpu_count()} cores · "
        f"load average {load}\n"
    )
    headers = ["measure", *(h.name for h in harnesses)]
    if len(harnesses) == 2:
        headers.append("auger ÷ Codex")

    def row(label: str, values: list[float], scale: float, unit: str) -> list[str]:
        cells = [f"{v * scale:.1f} {unit}" for v in values]
        if len(values) == 2:
            cells.append(f"{values[0] / values[1]:.2f}×")
        return [label, *cells]

    rows = [
        row(
            "start → first request (median)",
            [statistics.median(h.first) for h in harnesses],
            1e3,
            "ms",
        ),
        row("start → first request (best)", [min(h.first) for h in harnesses], 1e3, "ms"),
        row(
            "one short reply, wall (median)",
            [statistics.median(h.walls) for h in harnesses],
            1e3,
            "ms",
        ),
        row(
            "CPU (user + sys), one short reply (median)",
            [statistics.median(h.cpu) for h in harnesses],
            1e3,
            "ms",
        ),
        row(
            "`--version` wall (median)",
            [statistics.median(h.versions) for h in harnesses],
            1e3,
            "ms",
        ),
        row("peak RSS", [max(h.rss) for h in harnesses], 1 / 2**20, "MB"),
    ]
    print(grid(headers, rows))
    if len(harnesses) == 2:
        ratio = statistics.median(harnesses[0].first) / statistics.median(harnesses[1].first)
        mark = "✓" if ratio <= TARGET_RATIO else "✗"
        print(f"\ntarget: auger's first request ≤ {TARGET_RATIO}× Codex's: {ratio:.2f}× {mark}")
    else:
        print("\nCodex: skipped — `codex` not found (npm install @openai/codex)")


if __name__ == "__main__":
    main()
