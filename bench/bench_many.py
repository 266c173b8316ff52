"""Many sessions in one process: 100 Runtimes at once, each a multi-step tool turn.

Run: .venv/bin/python bench/bench_many.py [--sessions N] [--deltas D]

A scripted Chat Completions server runs in its own process (so its work is not counted): it
answers a request by how far its conversation has got — a `read`, then an `ls`, then a reply
of D text deltas. The Runtimes run in a fresh child process per measurement, once with one
session and once with N, all with the default bundled extensions, after one warm-up turn
(imports happen once per process); each child reports its peak RSS and the CPU its turns
took. RSS per added session is the difference over N − 1; CPU per delta is the turns' CPU
over the deltas streamed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from report import table  # noqa: E402

from support.chat import text, tool_calls  # noqa: E402

TARGETS = {"per_session": 1024 * 1024}


# --- the server (its own process) ------------------------------------------------------------


def reply_for(body: dict[str, Any], deltas: int) -> bytes:
    """The next reply of the scripted turn, chosen by how many tool results came back."""
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if done == 0:
        return tool_calls(("call_1", "read", {"path": "notes.txt"})).body
    if done == 1:
        return tool_calls(("call_2", "ls", {})).body
    return b"".join(_text_deltas(deltas))


def _text_deltas(deltas: int) -> list[bytes]:
    whole = text("x").body.split(b"\n\n")  # the first event carries the text: repeat it
    first = whole[0].replace(b'"x"', b'"word "')
    return [first + b"\n\n"] * deltas + [event + b"\n\n" for event in whole[1:] if event]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    deltas = 100

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        out = reply_for(body, self.deltas)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""


def serve(deltas: int) -> None:
    _Handler.deltas = deltas
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.request_queue_size = 256
    print(server.server_address[1], flush=True)
    server.serve_forever()


# --- the sessions (a child process per measurement) ------------------------------------------


async def sessions(count: int, url: str, tmp: Path) -> dict[str, float]:
    from auger.runtime import Runtime

    settings = {
        "model": "local/test-model",
        "providers": {"local": {"api": "chat-completions", "base_url": url + "/v1"}},
    }
    runtimes = []
    for i in range(count + 1):
        cwd = tmp / f"project{i}"
        cwd.mkdir()
        (cwd / "notes.txt").write_text("Ship the release.\n")
        runtimes.append(
            Runtime(settings=settings, env={"HOME": str(tmp)}, home=tmp / "home", cwd=cwd)
        )
    deltas = 0
    warm, *runtimes = runtimes

    async def turn(runtime: Runtime) -> None:
        nonlocal deltas
        async for record in runtime.prompt("Read notes.txt, list the files, then answer."):
            if record.type == "text_delta":
                deltas += 1
            elif record.type == "turn_end" and record.stop_reason != "completed":
                raise SystemExit(f"a turn ended {record.stop_reason}: {record.to_dict()}")

    await turn(warm)  # imports and first-use set-up happen once per process, not per session
    deltas = 0
    cpu = time.process_time()
    wall = time.perf_counter()
    await asyncio.gather(*(turn(r) for r in runtimes))
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    await asyncio.gather(*(r.close() for r in [warm, *runtimes]))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"rss": rss, "cpu": cpu, "wall": wall, "deltas": deltas}


def measure(count: int, url: str) -> dict[str, float]:
    """One child process running `count` sessions at once."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(count), "--url", url],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--deltas", type=int, default=100)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.deltas)
        return
    if args.child is not None:
        with tempfile.TemporaryDirectory() as tmp:
            result = asyncio.run(sessions(args.child, args.url, Path(tmp)))
        print(json.dumps(result))
        return
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", "--deltas", str(args.deltas)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        measure(1, url)  # warm the disk cache
        one = min((measure(1, url) for _ in range(3)), key=lambda r: r["rss"])
        many = measure(args.sessions, url)
    finally:
        server.terminate()
        server.wait()
    added = (many["rss"] - one["rss"]) / (args.sessions - 1)
    rows = [
        ("peak RSS, 1 session", one["rss"], None, "MB", 1 / 2**20),
        (f"peak RSS, {args.sessions} sessions at once", many["rss"], None, "MB", 1 / 2**20),
        ("RSS per added session", added, "per_session", "MB", 1 / 2**20),
        ("CPU per delta, 1 session", one["cpu"] / one["deltas"], None, "µs", 1e6),
        (f"CPU per delta, {args.sessions} sessions", many["cpu"] / many["deltas"], None, "µs", 1e6),
        (f"wall, {args.sessions} turns at once", many["wall"], None, "s", 1),
    ]
    print(
        f"{args.sessions} sessions · each: read, ls, then {args.deltas} text deltas · "
        f"python {sys.version.split()[0]} · {os.cpu_count()} cores\n"
    )
    print(table(rows, TARGETS, digits=2))
    print(
        "\n(CPU per delta: a whole turn's CPU — tools, session writes, requests — over its deltas)"
    )


if __name__ == "__main__":
    main()
