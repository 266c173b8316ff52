"""Agent Skills (the SKILL.md standard): found, listed to the model, run with `/skill:<name>`."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

import msgspec

from auger.commands.frontmatter import FrontMatterError, split
from auger.commands.paths import upward
from auger.engine.context import Context
from auger.records import SkillActivated

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Skill(msgspec.Struct, frozen=True):
    """One skill: its name, description, file, and whether the model may pick it itself."""

    name: str
    description: str
    path: Path
    model_invocable: bool = True

    @property
    def body(self) -> str:
        """The instructions, without the front matter (read when the skill runs)."""
        return split(self.path.read_text(encoding="utf-8"))[1].strip()


def load_skill(path: Path) -> Skill:
    """The skill in `path` (a SKILL.md); `ValueError` says what is wrong with it."""
    meta, _ = split(path.read_text(encoding="utf-8"))
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
    return Skill(name, " ".join(description.split()), path, invocable)


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


def discover(dirs: list[Path]) -> tuple[list[Skill], list[str]]:
    """The valid skills (the closest of one name wins) and a notice for each invalid one."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*/SKILL.md")):
            try:
                skill = load_skill(path)
            except (ValueError, FrontMatterError, OSError) as exc:
                problems.append(f"skill {path.parent.name} skipped ({path}): {exc}")
                continue
            found.setdefault(skill.name, skill)
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
    skills, problems = discover(skill_dirs(g.cwd, g.user_home, g.skill_sources))
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
