"""Agent Skills (the SKILL.md standard): found, listed to the model, run with `/skill:<name>`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

import msgspec

from auger.commands.frontmatter import FrontMatterError, split
from auger.commands.paths import upward
from auger.config.textfile import TextFileError, read_text
from auger.engine.context import Context
from auger.records import SkillActivated

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Skill(msgspec.Struct, frozen=True):
    """One skill: its name, description, file, and whether the model may pick it itself."""

    name: str
    description: str
    path: Path
    model_invocable: bool = True
    folders: tuple[Path, ...] = ()  # where its file may resolve to (config.textfile)
    user: bool = False  # one of the user's own, not the project's

    @property
    def body(self) -> str:
        """The instructions, without the front matter (read when the skill runs)."""
        return split(read_text(self.path, self.folders))[1].strip()


def load_skill(path: Path, folders: Sequence[Path] = (), user: bool = False) -> Skill:
    """The skill in `path` (a SKILL.md), read only where `folders` allow (its own folder when
    none are given); `ValueError` says what is wrong with it."""
    folders = tuple(folders) or (path.parent,)
    try:
        meta, _ = split(read_text(path, folders))
    except TextFileError as exc:
        raise ValueError(str(exc)) from None
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 64:
        raise ValueError("name must be lowercase letters, digits and hyphens (64 at most)")
    if name != path.parent.name:
        raise ValueError(f"name {name!r} must match its directory {path.parent.name!r}")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("description is missing")
    if len(description) > 1024:
        raise ValueError("description is longer than 1024 characters")
    invocable = not meta.get("disable-model-invocation", False)
    return Skill(name, " ".join(description.split()), path, invocable, folders, user)


def skill_dirs(cwd: Path, home_dir: Path, extra: list[Path]) -> list[Path]:
    """Where skills live, closest first: `.agents/skills` then Claude Code's `.claude/skills`
    from cwd up to the repository root, then extension-added folders, then the same two in
    the user's home."""
    return [
        *(d / sub / "skills" for d in upward(cwd) for sub in (".agents", ".claude")),
        *extra,
        home_dir / ".agents" / "skills",
        home_dir / ".claude" / "skills",
    ]


def discover(
    dirs: list[Path],
    user_dirs: Sequence[Path] = (),
    folders: Sequence[Path] = (),
    user_folders: Sequence[Path] = (),
    trusted: bool = True,
) -> tuple[list[Skill], list[str]]:
    """The valid skills (the closest of one name wins) and a notice for each invalid one. The
    `user_dirs` hold the user's own skills, which an untrusted project's never shadow."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    users = set(user_dirs)
    for folder in dirs:
        if not folder.is_dir():
            continue
        user = folder in users
        for path in sorted(folder.glob("*/SKILL.md")):
            try:
                skill = load_skill(path, (user_folders if user else folders) or (folder,), user)
            except (ValueError, FrontMatterError, OSError) as exc:
                problems.append(f"skill {path.parent.name} skipped ({path}): {exc}")
                continue
            found.setdefault(skill.name, skill)
    if not trusted:
        for skill in list(found.values()):
            mine = next((d for d in user_dirs if (d / skill.name / "SKILL.md").is_file()), None)
            if not skill.user and mine is not None:
                problems.append(
                    f"skill {skill.name} of this project skipped ({skill.path}): it would shadow "
                    "your own skill of that name and the project is not trusted"
                )
                found[skill.name] = load_skill(mine / skill.name / "SKILL.md", user_folders, True)
    return list(found.values()), problems


def listing(skills: list[Skill]) -> str:
    """The system-prompt section that tells the model which skills exist and where."""
    shown = [s for s in skills if s.model_invocable]
    if not shown:
        return ""
    items = "\n".join(
        f"  <skill>\n    <name>{escape(s.name)}</name>\n"
        f"    <description>{escape(s.description)}</description>\n"
        f"    <location>{escape(str(s.path))}</location>\n  </skill>"
        for s in shown
    )
    return (
        "These skills give instructions for specific tasks. When a task matches a skill's "
        "description, read its file with the read tool before you start.\n"
        f"<available_skills>\n{items}\n</available_skills>"
    )


def inline(skill: Skill, args: str) -> str:
    """The prompt `/skill:<name> args` sends: the skill's instructions, then the request."""
    text = (
        f'<skill name="{skill.name}" location="{skill.path}">\n'
        f"References are relative to {skill.path.parent}.\n\n{skill.body}\n</skill>"
    )
    return f"{text}\n\n{args}" if args else text


def extension(g: Any) -> None:
    """Registers the skills section and one `/skill:<name>` command per skill."""
    from auger.commands.paths import project_folders
    from auger.config import textfile
    from auger.extensions import claude_project

    user_dirs = [g.user_home / ".agents" / "skills", g.user_home / ".claude" / "skills"]
    extra = list(g.skill_sources)
    skills, problems = discover(
        skill_dirs(g.cwd, g.user_home, extra),
        user_dirs,
        [*project_folders(g.cwd), *extra],
        [*textfile.user_folders(g.home, g.user_home), *extra],
        claude_project.trusted(g.home, g.cwd),
    )
    for problem in problems:
        g.notify(problem, "warning")
    for skill in skills:

        async def run(ctx: Context, skill: Skill = skill) -> None:
            await ctx.publish(SkillActivated(skill.name))
            await ctx.prompt(inline(skill, ctx.args))

        g.command(f"skill:{skill.name}", run, skill.description)
    section = listing(skills)
    if section:
        g.prompt("skills", section, context=True)
