"""Benchmark of the session store on a generated 10,000-entry session (about 20 MB).

Run: .venv/bin/python bench/bench_sessions.py [--runs N] [--entries N]

Generates a session in a temp dir through `SessionFile.append`: turns of a prompt, assistant
steps with reasoning, text and tool calls, and tool results of a few KB, with an occasional
model change, extension state and label. Then times opening the file and building the model
context of its leaf (target < 300 ms), appending one entry to it (median over 1,000 appends,
target < 1 ms), and listing it. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from report import table

from auger.llm.messages import (
    AssistantMessage,
    Message,
    ProviderData,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.usage import Usage
from auger.session.context import build_context
from auger.session.entries import (
    CustomEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
)
from auger.session.paths import list_sessions, new_session_path
from auger.session.store import SessionFile, SessionHeader

TARGETS = {"load": 0.300, "append": 0.001}
CWD = "/home/user/project"
WORDS = ["the", "function", "returns", "file", "path", "test", "error", "module", "class"]
WORDS += ["config", "session", "entry", "model", "tool", "result", "read", "edit", "line", "fix"]


class Text:
    """Random prose: slices of one generated corpus, so making 20 MB stays fast."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.corpus = " ".join(rng.choice(WORDS) for _ in range(60_000))

    def __call__(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        start = self.rng.randrange(len(self.corpus) - size)
        return self.corpus[start : start + size]


def turn(rng: random.Random, text: Text, number: int) -> list[Message]:
    """One user prompt and the agent's work on it: a few tool steps, then an answer."""
    usage = Usage(12_000 + number, 400, cache_read_tokens=10_000, cost=0.004)
    messages: list[Message] = [UserMessage.of(text(100, 600))]
    for step in range(rng.randint(1, 4)):
        calls = tuple(
            ToolCall(
                f"call_{number}_{step}_{i}",
                rng.choice(["read", "edit", "bash", "grep"]),
                json.dumps({"path": f"src/mod{i}.py", "text": text(150, 1300)}),
            )
            for i in range(rng.randint(1, 2))
        )
        signed = ProviderData("thinking_signature", {"signature": "sig" * 20})
        parts = (ReasoningPart(text(100, 800)), signed, TextPart(text(50, 300)), *calls)
        messages.append(AssistantMessage(parts, usage, "tool_use", "anthropic", "claude", "m"))
        messages += [
            ToolResultMessage(call.call_id, call.name, (TextPart(text(800, 4200)),))
            for call in calls
        ]
    answer = (TextPart(text(300, 1500)),)
    messages.append(AssistantMessage(answer, usage, "stop", "anthropic", "claude", "m"))
    return messages


def generate(path: Path, entries: int, seed: int = 7) -> SessionFile:
    """A session of `entries` entries at `path`."""
    rng = random.Random(seed)
    text = Text(rng)
    session = SessionFile.create(path, SessionHeader(id=path.stem, cwd=CWD))
    number = 0
    while len(session.entries) < entries:
        number += 1
        extra: list[Entry] = []
        if number % 50 == 0:
            extra.append(ModelChangeEntry("anthropic", rng.choice(["claude", "claude-2"])))
        if number % 20 == 0:
            extra.append(CustomEntry("todo", {"items": [text(20, 60) for _ in range(5)]}))
        if number % 30 == 0 and session.leaf_id:
            extra.append(LabelEntry(session.leaf_id, f"checkpoint {number}"))
        for entry in [*extra, *map(MessageEntry, turn(rng, text, number))]:
            if len(session.entries) < entries:
                session.append(entry)
    return session


def median_time(action: Callable[[], object], runs: int) -> float:
    """The median wall time of `action` over `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--entries", type=int, default=10_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = new_session_path(tmp, CWD, "bench")
        started = time.perf_counter()
        generate(path, args.entries).close()
        generated = time.perf_counter() - started
        size = path.stat().st_size

        def load() -> list[Message]:
            with SessionFile.open(path) as session:
                return build_context(session.branch())

        session = SessionFile.open(path)
        branch = session.branch()
        load_time = median_time(load, args.runs)
        open_time = median_time(lambda: SessionFile.open(path), args.runs)
        context_time = median_time(lambda: build_context(session.branch()), args.runs)
        list_time = median_time(lambda: list_sessions(tmp, CWD), args.runs)

        rng = random.Random(1)
        text = Text(rng)
        appends = []
        for number in range(1_000):
            message = turn(rng, text, number)[1]
            started = time.perf_counter()
            session.append(MessageEntry(message))
            appends.append(time.perf_counter() - started)
        session.close()
        append_time = statistics.median(appends)
        append_p99 = sorted(appends)[int(len(appends) * 0.99)]

    rows = [
        ("open + build_context", load_time, "load", "ms", 1e3),
        ("(open alone)", open_time, None, "ms", 1e3),
        ("(branch + build_context alone)", context_time, None, "ms", 1e3),
        ("append one entry (median of 1,000)", append_time, "append", "µs", 1e6),
        ("append one entry (p99)", append_p99, None, "µs", 1e6),
        ("list_sessions (this one file)", list_time, None, "ms", 1e3),
    ]
    print(
        f"{args.entries:,} entries · {size / 1e6:.1f} MB · branch of {len(branch):,} · "
        f"generated in {generated:.1f} s · runs: {args.runs} · "
        f"python {sys.version.split()[0]} · {os.cpu_count()} cores\n"
    )
    print(table(rows, TARGETS))


if __name__ == "__main__":
    main()
