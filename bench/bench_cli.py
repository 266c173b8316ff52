"""Start-up and streaming benchmark of `auger -p` against a local scripted HTTP server.

Run: .venv/bin/python bench/bench_cli.py [--runs N]

Measures, on this machine: `auger --version` wall time; process start to the first request
received by the server, and the same for a bare script that streams one request through
auger's HTTP transport (asyncio + h11: the floor auger's own code sits on); total time of a
short reply; CPU per streamed delta in `--json` mode (a 5,000-delta reply, less a 1-delta
reply); and peak RSS. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
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


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, float]:
    """Wall time, CPU seconds (user+sys), peak RSS bytes, and the start time of one run."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, started


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
    runs = parser.parse_args().runs
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
            _, _, _, started = run([sys.executable, "-c", FLOOR, server.url], env, cwd)
            floor.append(server.requests[-1].received - started)
        first, short = [], []
        for _ in range(runs):
            server.queue(Reply(body=anthropic_reply(5)))
            wall, _, _, started = run([auger, "-p", "hi"], env, cwd)
            first.append(server.requests[-1].received - started)
            short.append(wall)

        small_cpu, big_cpu, rss = [], [], []
        for _ in range(runs):
            server.queue(Reply(body=anthropic_reply(1)))
            small_cpu.append(run([auger, "-p", "--json", "hi"], env, cwd)[1])
            server.queue(Reply(body=anthropic_reply(5000)))
            _, cpu, peak, _ = run([auger, "-p", "--json", "hi"], env, cwd)
            big_cpu.append(cpu)
            rss.append(peak)
        # min, not median: start-up CPU varies by more than 5,000 deltas cost, upward only
        per_delta = (min(big_cpu) - min(small_cpu)) / 4999

    rows = [
        ("`auger --version` wall", statistics.median(version), "version", "ms", 1e3),
        ("start → first request", statistics.median(first), "first_request", "ms", 1e3),
        ("(floor: bare asyncio + h11 transport)", statistics.median(floor), None, "ms", 1e3),
        ("short reply, total", statistics.median(short), None, "ms", 1e3),
        ("CPU per delta (`--json`, 5,000)", per_delta, "cpu_per_delta", "µs", 1e6),
        ("peak RSS (5,000 deltas)", max(rss), "rss", "MB", 1 / 1024 / 1024),
    ]
    print(f"runs: {runs} · python {sys.version.split()[0]} · {os.cpu_count()} cores\n")
    print(table(rows, TARGETS))


if __name__ == "__main__":
    main()
