"""Prompt templates: `.auger/prompts/*.md` and `~/.auger/prompts/*.md` become `/name` commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from auger.commands.frontmatter import FrontMatterError, split
from auger.engine.context import Context

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS|@|[1-9])")


def expand(template: str, args: str) -> str:
    """Fill `$1`…`$9` (shell-style words), `$@` (the words joined) and `$ARGUMENTS` (as typed)."""
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return args
        if key == "@":
            return " ".join(words)
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    return _PLACEHOLDER.sub(fill, template)


def templates(home: Path, cwd: Path) -> dict[str, Path]:
    """Template files by command name; the project's win over the user's."""
    found: dict[str, Path] = {}
    for folder in (home / "prompts", cwd / ".auger" / "prompts"):
        if folder.is_dir():
            found.update((p.stem, p) for p in sorted(folder.glob("*.md")))
    return found


def extension(g: Any) -> None:
    """Registers one command per template."""
    for name, path in templates(g.home, g.cwd).items():
        try:
            meta, body = split(path.read_text(encoding="utf-8"))
        except (OSError, FrontMatterError) as exc:
            g.notify(f"prompt template {path} skipped: {exc}", "warning")
            continue
        first_line = body.strip().splitlines()[0][:60] if body.strip() else ""
        description = str(meta.get("description") or first_line)

        async def run(ctx: Context, body: str = body) -> None:
            await ctx.prompt(expand(body, ctx.args).strip())

        g.command(name, run, description)
