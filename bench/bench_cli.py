"""Start-up and streaming benchmark of `auger -p` against a local scripted HTTP server.

Run: .venv/bin/python bench/bench_cli.py [--runs N]

Measures, on this machine: `auger --version` wall time; process start to the first request
received by the server, and the same for a bare script that streams one request through
auger's HTTP transport (asyncio + h11: the floor auger's own code sits on); total time of a
short reply; CPU per streamed delta in `--json` mode (a 40,000-delta reply, less a 1-delta
reply: start-up CPU varies by more than a few thousand deltas cost); and peak RSS of a
5,000-delta reply. Prints a Markdown table. `--baseline PATH/TO/auger` measures another
build's CPU per delta interleaved with this one's, so a "no worse" claim compares runs taken
under the same machine load.
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

from report import table  # noqa: E402

from support.server import FakeServer, Reply, sse  # noqa: E402

TARGETS = {
    "version": 0.040,
    "first_request": 0.150,
    "cpu_per_delta": 10e-6,
    "rss": 60 * 1024 * 1024,
}
DELTAS = 40_000


def anthropic_reply(deltas: int) -> bytes:
    """An Anthropic Messages stream of `deltas` text deltas."""
    events = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "m",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "m",
                    "stop_reason": None,
                    "usage": {"input_tokens": 20, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
    ]
    events += [
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": f"word{i} "},
            },
        )
        for i in range(deltas)
    ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": deltas},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return sse(*events)


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall time, CPU seconds (user+sys), and the start time of one run."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, started


# A child's peak RSS counts its parent's at fork (Linux keeps the high-water mark across
# exec), and this process holds the server and its replies: a small process launches auger.
SPAWN = """
import os, sys
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
print(os.wait4(pid, 0)[2].ru_maxrss * 1024)
"""


def peak_rss(cmd: list[str], env: dict[str, str], cwd: Path) -> int:
    """Peak RSS bytes of one run of `cmd`, launched from a small process."""
    out = subprocess.run(
        [sys.executable, "-S", "-c", SPAWN, *cmd],
        env=env,
        cwd=cwd,
        capture_output=True,
        check=True,
        text=True,
    )
    return int(out.stdout.splitlines()[-1])


FLOOR = """
import asyncio, sys
from auger.llm.transport import HttpRequest, HttpTransport
async def main():
    request = HttpRequest("POST", sys.argv[1] + "/v1/messages", {}, b'{"m": 1}')
    async with HttpTransport().stream(request) as r:
        async for _ in r.aiter_bytes():
            pass
asyncio.run(main())
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", help="another build's `auger` executable to compare with")
    args = parser.parse_args()
    runs = args.runs
    auger = str(Path(sys.executable).parent / "auger")
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as server:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        cwd.mkdir()
        (home / "settings.json").write_text(json.dumps({"model": "anthropic/claude-haiku-4-5"}))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": tmp,
            "AUGER_HOME": str(home),
            "ANTHROPIC_API_KEY": "sk-bench",
            "ANTHROPIC_BASE_URL": server.url,
        }
        version = [run([auger, "--version"], env, cwd)[0] for _ in range(runs)]

        floor = []
        for _ in range(runs):
            server.queue(Reply(body=anthropic_reply(5)))
            _, _, started = run([sys.executable, "-c", FLOOR, server.url], env, cwd)
            floor.append(server.requests[-1].received - started)
        first, short = [], []
        for _ in range(runs):
            server.queue(Reply(body=anthropic_reply(5)))
            wall, _, started = run([auger, "-p", "hi"], env, cwd)
            first.append(server.requests[-1].received - started)
            short.append(wall)

        builds = {"this": (auger, env)}
        if args.baseline:  # a home of its own: the two builds must not rewrite each other's cache
            other = Path(tmp) / "baseline-home"
            shutil.copytree(home, other)
            builds["baseline"] = (args.baseline, env | {"AUGER_HOME": str(other)})
        cpu: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in builds}
        rss, one, many = [], anthropic_reply(1), anthropic_reply(DELTAS)
        for _ in range(runs):
            for name, (exe, build_env) in builds.items():
                server.queue(Reply(body=one))
                cpu[name][0].append(run([exe, "-p", "--json", "hi"], build_env, cwd)[1])
                server.queue(Reply(body=many))
                cpu[name][1].append(run([exe, "-p", "--json", "hi"], build_env, cwd)[1])
            server.queue(Reply(body=anthropic_reply(5000)))
            rss.append(peak_rss([auger, "-p", "--json", "hi"], env, cwd))
        # medians of both: the fastest start-up alone is an outlier as often as the slowest
        per_delta = {
            name: (statistics.median(big) - statistics.median(small)) / (DELTAS - 1)
            for name, (small, big) in cpu.items()
        }

    rows = [
        ("`auger --version` wall", statistics.median(version), "version", "ms", 1e3),
        ("start → first request", statistics.median(first), "first_request", "ms", 1e3),
        ("(floor: bare asyncio + h11 transport)", statistics.median(floor), None, "ms", 1e3),
        ("short reply, total", statistics.median(short), None, "ms", 1e3),
        ("CPU per delta (`--json`, 40,000)", per_delta["this"], "cpu_per_delta", "µs", 1e6),
        ("peak RSS (5,000 deltas)", max(rss), "rss", "MB", 1 / 1024 / 1024),
    ]
    if "baseline" in per_delta:
        rows.append(("(baseline build, interleaved)", per_delta["baseline"], None, "µs", 1e6))
    print(f"runs: {runs} · python {sys.version.split()[0]} · {os.cpu_count()} cores\n")
    print(table(rows, TARGETS))


if __name__ == "__main__":
    main()
