"""Benchmark of the interactive terminal: launch to a ready prompt, and rendering CPU per delta.

Run: .venv/bin/python bench/bench_terminal.py [--launches N] [--runs N]

1. Launch: `auger` (the console script) starts in a new window of a private tmux server that is
   already running (100×30), with a scripted model; the time is taken from just before tmux is
   asked to open the window until `capture-pane` first shows the prompt, and until the status
   line shows the model (the Runtime is built). Target: the prompt within 300 ms.
2. Rendering: a 5,000-delta reply of mixed Markdown (paragraphs with inline styles, lists, code
   blocks, tables) is fed as `text_delta` records to the renderer, writing to nowhere; CPU time
   per delta, rendering after every delta (the worst case) and after every 10 (about what a
   frame sees while a fast model streams). Target: under 20 µs per delta.

Prints a Markdown table of medians.
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
import uuid
from pathlib import Path

from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.text import Theme
from auger.llm.usage import Usage
from auger.records import TextDelta, TextDone, TurnEnd

LAUNCH_TARGET = 0.300
DELTA_TARGET = 20e-6
DELTAS = 5000
TMUX = shutil.which("tmux") or "/usr/bin/tmux"
POLL = 0.005
"""Seconds between two looks at the screen: polling flat out would slow the launch it times."""

PARAGRAPH = (
    "The **runtime** streams `records` to every host, and the _terminal_ renders them as they "
    "arrive; see [the spec](https://example.com/spec) for the ~~old~~ exact contract."
)
CODE = "```python\ndef render(record):\n    # one line at a time\n    return f'{record.type}'\n```"
LIST = "- first point with `code`\n- second point, a little longer than the first\n  - nested"
TABLE = "| name | size |\n|---|---|\n| read | 1.2k |\n| edit | 900 |"
BLOCKS = [PARAGRAPH, LIST, "## A heading", CODE, PARAGRAPH, TABLE]


def reply_deltas(count: int) -> list[str]:
    """`count` word-sized deltas of a Markdown reply."""
    deltas: list[str] = []
    while len(deltas) < count:
        for block in BLOCKS:
            text = block + "\n\n"
            start = 0
            for i, ch in enumerate(text):
                if ch == " " and i > start:
                    deltas.append(text[start:i])
                    start = i
            deltas.append(text[start:])
    return deltas[:count]


def render_cpu(deltas: list[str], every: int) -> float:
    """CPU seconds per delta to render `deltas`, taking output every `every` deltas."""
    renderer = Renderer(Theme(color=True), cells=100)
    records = [TextDelta(d) for d in deltas]
    sink = open(os.devnull, "w")  # noqa: SIM115 - closed below, after the timed part
    start = time.process_time()
    for n, record in enumerate(records, 1):
        renderer.feed(record)
        if n % every == 0:
            sink.write(renderer.take())
            renderer.live()
    renderer.feed(TextDone("".join(deltas)))
    renderer.feed(TurnEnd("completed", Usage()))
    sink.write(renderer.take())
    spent = time.process_time() - start
    sink.close()
    return spent / len(records)


def launch_times(runs: int) -> tuple[list[float], list[float]]:
    """Seconds from launch to the prompt on screen, and to the model in the status line."""
    auger = Path(sys.executable).with_name("auger")
    prompts, readies = [], []
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        (home / "script.json").write_text(json.dumps([{"text": "hi"}]))
        provider = {"api": "scripted", "script": str(home / "script.json")}
        settings = {"model": "s/test", "providers": {"s": provider}}
        (home / "settings.json").write_text(json.dumps(settings))
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": tmp,
            "AUGER_HOME": str(home),
            "TERM": "xterm-256color",
            "TMUX_TMPDIR": tmp,
        }
        for _ in range(runs):
            socket = f"auger-bench-{uuid.uuid4().hex[:12]}"
            tmux = [TMUX, "-L", socket]
            size = ["-x", "100", "-y", "30"]
            try:
                # The server is up before the clock starts: its start is tmux's, not auger's.
                subprocess.run(
                    [*tmux, "-f", "/dev/null", "new-session", "-d", "-s", "b", *size, "sleep 60"],
                    env=env,
                    check=True,
                )
                start = time.perf_counter()
                subprocess.run(
                    [*tmux, "new-window", "-d", "-t", "b:1", "-c", str(project), str(auger)],
                    env=env,
                    check=True,
                )
                prompt = ready = None
                while ready is None and time.perf_counter() - start < 10:
                    screen = subprocess.run(
                        [*tmux, "capture-pane", "-p", "-t", "b:1"],
                        env=env,
                        capture_output=True,
                        text=True,
                    ).stdout
                    now = time.perf_counter() - start
                    if prompt is None and "\n›" in screen:
                        prompt = now
                    if prompt is not None and "s/test · ctx" in screen:
                        ready = now
                    time.sleep(POLL)
                if prompt is None or ready is None:
                    raise SystemExit(f"auger never showed its prompt:\n{screen}")
                prompts.append(prompt)
                readies.append(ready)
            finally:
                subprocess.run([*tmux, "kill-server"], env=env, capture_output=True)
    return prompts, readies


def main() -> None:
    """Run both benchmarks and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=10, help="launches to time")
    parser.add_argument("--runs", type=int, default=5, help="renders of the reply to time")
    args = parser.parse_args()

    deltas = reply_deltas(DELTAS)
    render_cpu(deltas, 1)  # warm up: imports, regexes, the lexer
    worst = statistics.median(render_cpu(deltas, 1) for _ in range(args.runs))
    framed = statistics.median(render_cpu(deltas, 10) for _ in range(args.runs))
    prompts, readies = launch_times(args.launches)

    def ms(seconds: float) -> str:
        return f"{seconds * 1000:.0f} ms"

    def us(seconds: float) -> str:
        return f"{seconds * 1e6:.1f} µs"

    def verdict(value: float, target: float) -> str:
        return "ok" if value < target else "OVER"

    print(f"{os.cpu_count()} CPUs · Python {sys.version.split()[0]} · {len(deltas)} deltas\n")
    print("| measure | median | worst | target | |")
    print("|---|---|---|---|---|")
    launch = statistics.median(prompts)
    print(
        f"| launch → prompt on screen | {ms(launch)} | {ms(max(prompts))} | "
        f"{ms(LAUNCH_TARGET)} | {verdict(launch, LAUNCH_TARGET)} |"
    )
    print(
        f"| launch → Runtime ready (model in status line) | {ms(statistics.median(readies))} "
        f"| {ms(max(readies))} | — | |"
    )
    print(
        f"| render CPU per delta, output after every delta | {us(worst)} | — | "
        f"{us(DELTA_TARGET)} | {verdict(worst, DELTA_TARGET)} |"
    )
    print(
        f"| render CPU per delta, output every 10 deltas | {us(framed)} | — | "
        f"{us(DELTA_TARGET)} | {verdict(framed, DELTA_TARGET)} |"
    )


if __name__ == "__main__":
    main()
