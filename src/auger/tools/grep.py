"""The `grep` tool: search file contents with a regular expression."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from itertools import groupby, islice
from pathlib import Path
from typing import Any

from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.files import Lines, open_regular
from auger.tools.paths import PathGlob, sort_key
from auger.tools.pygrep import Match, Query, python_search
from auger.tools.search import Target, find_rg, rg_listing, run_rg, search_target
from auger.tools.truncate import capped, clip_line

DEFAULT_LIMIT = 100
LINE_CHARS = 500
MAX_RG_OUTPUT = 8 * 1024 * 1024
"""The most of ripgrep's matching lines read per batch: a match in a huge line stays cheap."""
TIME_LIMIT = 60.0
"""Seconds a search may take; then it is stopped (its process killed) and the model told."""


def _some_lines(path: Path, wanted: set[int]) -> dict[int, str]:
    """The lines numbered in `wanted`, each cut to `LINE_CHARS`, reading no further than the
    last of them."""
    out: dict[int, str] = {}
    last = max(wanted, default=0)
    with open_regular(path, str(path)) as file:
        for number, (text, cut) in enumerate(Lines(file, LINE_CHARS), 1):
            if number in wanted:
                if number == 1:
                    text = text.removeprefix("\ufeff")
                out[number] = f"{text}… [line truncated: {cut} more chars]" if cut else text
            if number >= last:
                break
    return out


async def _rg_matches(
    rg: str, target: Target, flags: list[str], glob: PathGlob | None, count: int, ctx: ToolContext
) -> list[Match]:
    """Files with matches from one parallel ripgrep run, then their matching lines from a
    second run over the first few of them in order, so the result is deterministic."""
    files = iter(await rg_listing(rg, ["--files-with-matches", *flags], target, glob, ctx))
    found: list[Match] = []
    while len(found) < count and (batch := list(islice(files, count))):
        out = await run_rg(
            rg,
            [
                "--no-config",
                "--null",
                "--line-number",
                "--with-filename",
                "--no-heading",
                f"--max-count={count}",
                *flags,
                "--",
                *batch,
            ],
            target.root,
            ctx.env,
            MAX_RG_OUTPUT,
        )
        lines = []
        for row in out.split(b"\n"):
            path, nul, rest = row.partition(b"\0")
            number, colon, text = rest.partition(b":")
            if nul and colon:  # anything else is a note such as "binary file matches"
                lines.append((os.fsdecode(path), int(number), text.decode(errors="replace")))
        found += sorted(lines, key=lambda m: (sort_key(m[0]), m[1]))
    return found[:count]


def _format(matches: list[Match], target: Target, context: int) -> str:
    out: list[str] = []
    for rel, group in groupby(matches, key=lambda m: m[0]):
        name = target.prefix + rel
        hits = {number: line for _, number, line in group}
        if not context:
            out += (f"{name}:{n}:{clip_line(line, LINE_CHARS)}" for n, line in hits.items())
            continue
        wanted = {n for hit in hits for n in range(max(1, hit - context), hit + context + 1)}
        try:
            lines = _some_lines(target.root / rel, wanted)
        except (OSError, ToolError):  # gone since it was searched
            lines = {}
        for start, stop in _blocks(hits, context, max(lines, default=0)):
            if out:
                out.append("--")
            for n in range(start, stop + 1):
                mark = ":" if n in hits else "-"
                out.append(f"{name}{mark}{n}{mark}{lines.get(n, '')}")
    return "\n".join(out)


def _blocks(numbers: Iterable[int], context: int, last: int) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    for n in numbers:
        start, stop = max(1, n - context), min(last, n + context)
        if blocks and start <= blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], stop)
        else:
            blocks.append((start, stop))
    return blocks


async def grep(
    pattern: str,
    path: str | None = None,
    glob: str | None = None,
    ignore_case: bool = False,
    literal: bool = False,
    context: int = 0,
    limit: int = DEFAULT_LIMIT,
    *,
    ctx: ToolContext,
) -> str:
    """Search file contents for a regex (ripgrep syntax): path:line:text per match, at most 100,
    in path order; skips binaries and what .gitignore ignores. Narrow with path or glob.

    Args:
        path: Directory or file.
        glob: e.g. "*.py" or "src/**/*.ts".
        literal: pattern is plain text.
        context: Lines around each match.
    """
    if limit < 1 or context < 0:
        raise ToolError("validation_error", "limit must be at least 1 and context at least 0")
    target = search_target(ctx, path, files=True)
    if target.file is not None:
        ctx.check_readable(target.root / target.file, target.prefix + target.file)
    glob_filter = PathGlob(glob) if glob and target.file is None else None
    rg = find_rg(ctx)
    try:
        async with asyncio.timeout(TIME_LIMIT):
            if rg is not None:
                flags = [
                    *(["--ignore-case"] if ignore_case else []),
                    *(["--fixed-strings"] if literal else []),
                ]
                matches = await _rg_matches(
                    rg, target, [*flags, "--regexp", pattern], glob_filter, limit + 1, ctx
                )
            else:
                query = Query(pattern, ignore_case, literal, glob, limit + 1)
                matches = await python_search(target, query)
    except TimeoutError:
        raise ToolError(
            "timeout",
            f"the search took longer than {TIME_LIMIT:g} s and was stopped; narrow it with "
            "path or glob, or simplify the pattern",
        ) from None
    matches = [m for m in matches if not ctx.is_credentials(target.root / m[0])]
    if not matches:
        return "No matches found."
    text = _format(matches[:limit], target, context)
    return capped(
        text, limit, len(matches) > limit, "matches", "narrow the search with path or glob"
    )


TOOL = tool(grep)


def extension(g: Any) -> None:
    """Registers `grep`."""
    g.tool(TOOL)
