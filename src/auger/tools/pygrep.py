"""The pure-Python search `grep` falls back on without ripgrep, run in a child process.

Python's `re` holds the interpreter lock while it matches, so a catastrophic pattern such as
`(a+)+$` would freeze the whole agent — Ctrl-C included — if it ran in a thread. In a child
process it can be killed: on cancel, and when grep's time limit runs out.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec

from auger.tools.base import ToolError
from auger.tools.files import BINARY_PROBE, is_binary, open_regular
from auger.tools.paths import PathGlob, Tree
from auger.tools.search import Target, walked

Match = tuple[str, int, str]  # path under the target's root, line number, the line


class Query(msgspec.Struct, frozen=True):
    """What to search for: the pattern and its flags, an optional glob, how many matches."""

    pattern: str
    ignore_case: bool
    literal: bool
    glob: str | None
    count: int


def compile_query(query: Query) -> re.Pattern[str]:
    """The query's regular expression; a `validation_error` when it is invalid."""
    try:
        return re.compile(
            re.escape(query.pattern) if query.literal else query.pattern,
            re.IGNORECASE if query.ignore_case else 0,
        )
    except re.error as exc:
        raise ToolError("validation_error", f"invalid regular expression: {exc}") from None


def file_matches(path: Path, regex: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    """A file's matching lines as ripgrep numbers them, read a line at a time; nothing for a
    binary file (a NUL in its first block; one found later drops what was found)."""
    found: list[tuple[int, str]] = []
    with open_regular(path, str(path)) as file:
        if is_binary(file.peek(BINARY_PROBE)[:BINARY_PROBE]):  # type: ignore[attr-defined]
            return
        for number, raw in enumerate(file, 1):
            if b"\0" in raw:
                return
            line = raw.decode(errors="replace").removesuffix("\n")
            if number == 1:
                line = line.removeprefix("\ufeff")
            if regex.search(line):
                found.append((number, line))
    yield from found


def matches(root: Path, file: str | None, query: Query) -> list[Match]:
    """The first `query.count` matches under `root` (or in its `file`), in path order."""
    regex = compile_query(query)
    glob = PathGlob(query.glob) if query.glob and file is None else None
    files = [file] if file else walked(Tree(root), glob)
    found: list[Match] = []
    for rel in files:
        try:
            for number, line in file_matches(root / rel, regex):
                found.append((rel, number, line))
                if len(found) == query.count:
                    return found
        except (OSError, ToolError):
            continue
    return found


async def python_search(target: Target, query: Query) -> list[Match]:
    """`matches` in a child process, killed if this is cancelled (or times out)."""
    compile_query(query)  # an invalid pattern is the model's error, not the child's
    request = json.dumps(
        {"root": os.fsdecode(target.root), "file": target.file, "query": msgspec.to_builtins(query)}
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )
    try:
        out, err = await process.communicate(request.encode("utf-8", "surrogateescape"))
    except BaseException:
        process.kill()
        await asyncio.shield(process.wait())
        raise
    if process.returncode != 0:
        message = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise ToolError("command_failed", f"the search failed: {message[0]}")
    return [(rel, number, line) for rel, number, line in json.loads(out)]


def serve(request: bytes) -> str:
    """The child's work: a JSON request in, the matches as JSON out."""
    fields = json.loads(request.decode("utf-8", "surrogateescape"))
    query = msgspec.convert(fields["query"], Query)
    return json.dumps(matches(Path(fields["root"]), fields["file"], query))


if __name__ == "__main__":  # the child process: its own program, so its streams are its own
    sys.stdout.write(serve(sys.stdin.buffer.read()))
