"""The local provider on this machine: model load, time to first token, tokens per second.

Run: .venv/bin/python bench/bench_local.py [--model PATH.gguf] [--runs N] [--threads N]

Without `--model`, the test model (`auger[local-test]`: Qwen2.5-Coder 0.5B Instruct) is joined
from its packages. Each run sends one prompt of about 500 tokens through `LocalProvider`,
in-process, as `auger -p` would: time to first token is from the request to the first text
delta (prompt processing included); tokens per second is the reply's output tokens over the
time from the first delta to the last. Prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from report import grid  # noqa: E402

from auger.llm.local import LocalProvider  # noqa: E402
from auger.llm.messages import UserMessage  # noqa: E402
from auger.llm.provider import Model, PassThrough, Request  # noqa: E402
from auger.llm.records import ProviderNotice, TextDelta, TokenUsageDone  # noqa: E402
from support.gguf import join, missing  # noqa: E402

PROMPT = "Write a Python function that reverses a string, with a docstring."
CONTEXT = (ROOT / "README.md").read_text()[:2000]  # about 500 tokens of a prompt's context


async def measure(path: Path, runs: int, threads: int, window: int) -> list[list[str]]:
    """The rows of the table."""
    provider = LocalProvider("local", {"threads": threads, "seed": 1})
    model = Model("local", str(path), "llamacpp", context_window=window, max_output=128)
    load = 0.0
    ttft: list[float] = []
    rates: list[float] = []
    prompt_rates: list[float] = []
    prompt_tokens = 0
    try:
        for run in range(runs + 1):  # the first run loads the model (and is measured apart)
            # the run number first: llama.cpp cannot reuse the last run's prompt cache
            system = f"Run {run}. You are a coding assistant in this project:\n{CONTEXT}"
            request = Request(model, system, (UserMessage.of(PROMPT),))
            started = time.perf_counter()
            first = last = None
            out = 0
            async for record in provider.stream(request, PassThrough()):
                now = time.perf_counter()
                if isinstance(record, ProviderNotice) and record.message.startswith("loaded"):
                    load = now - started
                    started = now
                elif isinstance(record, TextDelta):
                    first = first or now
                    last = now
                elif isinstance(record, TokenUsageDone):
                    out = record.usage.output_tokens
                    prompt_tokens = record.usage.input_tokens
            if run == 0 or first is None or last is None:
                continue
            ttft.append(first - started)
            prompt_rates.append(prompt_tokens / (first - started))
            if out > 1 and last > first:
                rates.append((out - 1) / (last - first))
    finally:
        await provider.aclose()
    return [
        ["model load (first request)", f"{load:.2f} s"],
        [f"time to first token ({prompt_tokens}-token prompt)", f"{statistics.median(ttft):.2f} s"],
        ["prompt tokens per second (to the first token)", f"{statistics.median(prompt_rates):.0f}"],
        ["tokens per second (generation)", f"{statistics.median(rates):.1f}"],
    ]


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--window", type=int, default=8192)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.model
        if path is None:
            if absent := missing():
                sys.exit(f"pip install -e '.[local-test]' (missing: {', '.join(absent)})")
            path = join(Path(tmp))
        rows = asyncio.run(measure(path, args.runs, args.threads, args.window))
    print(f"{path.name}, {args.threads or 'all'} threads, {args.runs} runs\n")
    print(grid(["measure", "median"], rows))


if __name__ == "__main__":
    main()
