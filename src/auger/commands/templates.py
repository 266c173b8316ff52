"""Prompt templates: `.auger/prompts/*.md` and `~/.auger/prompts/*.md` become `/name` commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from auger.commands.frontmatter import FrontMatterError, split
from auger.commands.paths import project_folders
from auger.config.textfile import TextFileError, read_text, user_folders
from auger.engine.context import Context
from auger.extensions import claude_project

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


def templates(home: Path, cwd: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """Template files by command name: the user's, and the project's."""
    found: list[dict[str, Path]] = []
    for folder in (home / "prompts", project_folders(cwd)[0] / ".auger" / "prompts"):
        found.append(
            dict((p.stem, p) for p in sorted(folder.glob("*.md"))) if folder.is_dir() else {}
        )
    return found[0], found[1]


def extension(g: Any) -> None:
    """Registers one command per template: the user's, then the project's (which win over the
    user's only in a trusted project; an untrusted one's never shadow a command, SPEC §7)."""
    user, project = templates(g.home, g.cwd)
    trusted = claude_project.trusted(g.home, g.cwd)
    for scope, found, folders in (
        ("user", user, user_folders(g.home, g.user_home)),
        ("project", project, project_folders(g.cwd)),
    ):
        for name, path in found.items():
            if scope == "project" and not trusted and (g.has_command(name) or name in user):
                g.notify(
                    f"prompt template {path} skipped: /{name} is already a command and this "
                    "project is not trusted (run `auger trust` to let its templates replace it)",
                    "warning",
                )
                continue
            try:
                meta, body = split(read_text(path, folders))
            except (TextFileError, FrontMatterError) as exc:
                g.notify(f"prompt template {path} skipped: {exc}", "warning")
                continue
            first_line = body.strip().splitlines()[0][:60] if body.strip() else ""
            description = str(meta.get("description") or first_line)

            async def run(ctx: Context, body: str = body) -> None:
                await ctx.prompt(expand(body, ctx.args).strip())

            g.command(name, run, description)
