"""The command line's shared options, and what they ask `loader.build` for."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from auger.config import MODE_ALIASES, PERMISSION_MODES, SANDBOX_MODES

if TYPE_CHECKING:
    from auger.loader import Options


def add_options(p: argparse.ArgumentParser, *, sessions: bool = True) -> None:
    """The options every host shares: model, tools, extensions, and (with `sessions`) which
    saved session to continue."""
    p.add_argument("--model", help="PROVIDER/NAME, e.g. anthropic/claude-sonnet-5-5")
    p.add_argument("--max-steps", type=int, default=100, metavar="N", help="model calls per turn")
    p.add_argument(
        "--reasoning",
        choices=("low", "medium", "high", "xhigh", "max"),
        help="reasoning effort (xhigh and max: the models that have them)",
    )
    p.add_argument(
        "--cache-ttl", choices=("5m", "1h"), help="how long prompt-cache entries live (Anthropic)"
    )
    p.add_argument("--no-tools", action="store_true", help="no tools at all")
    p.add_argument("--tools", help="comma-separated allowlist of tools")
    p.add_argument(
        "--extension", action="append", default=[], metavar="PATH", help="load an extension file"
    )
    p.add_argument("--no-extensions", action="store_true", help="skip discovered extensions")
    p.add_argument("--no-skills", action="store_true", help="no Agent Skills")
    p.add_argument("--no-agents-md", action="store_true", help="no AGENTS.md / CLAUDE.md")
    p.add_argument("--no-save", action="store_true", help="keep sessions in memory only")
    p.add_argument("--system-prompt", metavar="TEXT", help="replace the system prompt")
    p.add_argument(
        "--append-system-prompt", metavar="TEXT", help="add TEXT at the end of the system prompt"
    )
    p.add_argument(
        "--permission-mode",
        choices=(*PERMISSION_MODES, *MODE_ALIASES),
        help="ask before edits and commands (ask, the default), or not; plan = read-only",
    )
    p.add_argument("--yolo", action="store_true", help="run every tool without asking (auto)")
    p.add_argument(
        "--search", action="store_true", help="let the model search the web (its provider's own)"
    )
    p.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="RULE",
        help="allow calls, e.g. 'bash(npm test:*)'",
    )
    p.add_argument("--deny", action="append", default=[], metavar="RULE", help="deny calls")
    p.add_argument(
        "--sandbox", choices=SANDBOX_MODES, help="where shell commands may write (bubblewrap)"
    )
    if sessions:
        p.add_argument(
            "-c",
            "--continue",
            dest="continue_",
            action="store_true",
            help="continue the latest session in this directory",
        )
        p.add_argument(
            "-r",
            "--resume",
            nargs="?",
            const="",
            metavar="ID",
            help="resume a session (an id prefix); without one, pick or list them",
        )
        p.add_argument(
            "--session", metavar="PATH", help="use this session file (created when missing)"
        )


def parser(command: str, usage: str, description: str) -> argparse.ArgumentParser:
    """An argument parser whose errors print the reason and the usage, then exit 2."""

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            sys.stderr.write(f"auger: {message}\nusage: {usage}\n")
            raise SystemExit(2)

    return Parser(prog=command, description=description, usage=usage)


def check(p: argparse.ArgumentParser, opts: argparse.Namespace) -> argparse.Namespace:
    """Checks the shared options cannot express (the rules are `loader.build`'s to check)."""
    if opts.max_steps < 1:
        p.error("--max-steps must be at least 1")
    chosen = [
        flag
        for flag, dest in (("-c", "continue_"), ("-r", "resume"), ("--session", "session"))
        if getattr(opts, dest, None) not in (None, False)
    ]
    if len(chosen) > 1:
        p.error(f"{' and '.join(chosen)} name different sessions: use one of them")
    if opts.yolo and opts.permission_mode not in (None, "auto"):
        p.error(f"--yolo and --permission-mode {opts.permission_mode} disagree")
    return opts


def parse(
    command: str, args: list[str], description: str, *, sessions: bool = False
) -> argparse.Namespace:
    """`auger COMMAND`'s options; a bad one prints the reason and exits with status 2."""
    p = parser(
        f"auger {command}", f"auger {command} [--model PROVIDER/NAME] [options]", description
    )
    add_options(p, sessions=sessions)
    return check(p, p.parse_args(args))


def options(opts: argparse.Namespace, cwd: Path | None = None) -> Options:
    """What the shared command-line options ask `loader.build` for."""
    from auger.loader import Options

    tools = None
    if opts.tools is not None:
        tools = tuple(t.strip() for t in opts.tools.split(",") if t.strip())
    mode = "auto" if opts.yolo else opts.permission_mode
    return Options(
        model=opts.model,
        cwd=None if cwd is None else str(cwd),
        max_steps=opts.max_steps,
        reasoning=opts.reasoning,
        tools=tools,
        bundled=not opts.no_tools,
        extensions=tuple(opts.extension),
        discover=not opts.no_extensions,
        skills=not opts.no_skills,
        agents_md=not opts.no_agents_md,
        save=not opts.no_save,
        system_prompt=opts.system_prompt,
        append_system_prompt=opts.append_system_prompt,
        permission_mode=MODE_ALIASES.get(mode, mode) if mode else None,
        allow=tuple(opts.allow),
        deny=tuple(opts.deny),
        sandbox=opts.sandbox,
        search=opts.search,
        cache_ttl=opts.cache_ttl,
        continue_=getattr(opts, "continue_", False),
        resume=getattr(opts, "resume", None),
        session=getattr(opts, "session", None),
    )
