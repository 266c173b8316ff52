"""The options of the long-running hosts (`auger acp`, `auger rpc`) and the Runtimes they build."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auger.config.schema import MODE_ALIASES, PERMISSION_MODES, SANDBOX_MODES

if TYPE_CHECKING:
    from auger.extensions.source import Extension, Source
    from auger.host import Host
    from auger.runtime import Runtime
    from auger.session.store import SessionFile


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
    """Checks the shared options cannot express."""
    from auger.extensions.permissions.policy import check_rules

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
    problem = check_rules([*opts.allow, *opts.deny])
    if problem:
        p.error(problem)
    return opts


def with_flags(settings: dict[str, Any], opts: argparse.Namespace) -> dict[str, Any]:
    """`settings` with the permission and sandbox flags over them (rules added, not replaced)."""
    from auger.config.schema import merge

    permissions: dict[str, Any] = {"allow": opts.allow, "deny": opts.deny}
    mode = "auto" if opts.yolo else opts.permission_mode
    if mode:
        permissions["mode"] = MODE_ALIASES.get(mode, mode)
    flags: dict[str, Any] = {"permissions": permissions}
    if opts.search:
        flags["tools"] = {"web_search": True}
    if opts.sandbox:
        flags["sandbox"] = {"mode": opts.sandbox}
    if opts.cache_ttl:
        flags["cache"] = {"ttl": opts.cache_ttl}
    return merge(settings, flags)


def parse(
    command: str, args: list[str], description: str, *, sessions: bool = False
) -> argparse.Namespace:
    """`auger COMMAND`'s options; a bad one prints the reason and exits with status 2."""
    p = parser(
        f"auger {command}", f"auger {command} [--model PROVIDER/NAME] [options]", description
    )
    add_options(p, sessions=sessions)
    return check(p, p.parse_args(args))


async def build_runtime(
    opts: argparse.Namespace,
    host: Host,
    cwd: Path,
    extensions: Sequence[Source | Extension | tuple[str, Extension]] = (),
    session: SessionFile | None = None,
    *,
    idle_before_turn_end: bool = False,
) -> Runtime:
    """A Runtime for `cwd` as the options say: discovered extensions then `extensions`, and
    the saved session the options name (or `session`). A `ConfigError` (no model, a missing
    key, a missing session…) propagates."""
    from auger.config.errors import ConfigError
    from auger.config.paths import auger_home
    from auger.extensions.permissions.policy import check_rules
    from auger.loader import ask_trust, discover, open_session, settings_for
    from auger.runtime import Runtime

    home = auger_home(os.environ)
    await ask_trust(home, cwd, host)
    found = discover(home, cwd, paths=opts.extension, discovered=not opts.no_extensions)
    settings, notices = settings_for(home, cwd, found)
    settings = with_flags(settings, opts)
    section = settings.get("permissions") or {}
    problem = check_rules(
        [*section.get("allow", []), *section.get("ask", []), *section.get("deny", [])]
    )
    if problem:
        raise ConfigError(f"settings permissions: {problem}")
    if session is None and hasattr(opts, "continue_"):
        session = open_session(
            home, cwd, continue_=opts.continue_, resume=opts.resume, path=opts.session
        )
    tools = None
    if opts.tools is not None:
        tools = [t.strip() for t in opts.tools.split(",") if t.strip()]
    disable = [
        name for name, off in (("skills", opts.no_skills), ("agents_md", opts.no_agents_md)) if off
    ]
    prompt = system_prompt(opts.system_prompt, opts.append_system_prompt)
    if prompt is not None:
        extensions = [*extensions, ("system_prompt", prompt)]
    runtime = Runtime(
        opts.model,
        cwd=cwd,
        home=home,
        session=session,
        save=not opts.no_save,
        settings=settings,
        extensions=[*found.sources, *extensions],
        disable=disable,
        host=host,
        max_steps=opts.max_steps,
        bundled=not opts.no_tools,
        tools=tools,
        reasoning=opts.reasoning,
        idle_before_turn_end=idle_before_turn_end,
        reread=lambda: with_flags(settings_for(home, cwd, found)[0], opts),
    )
    for notice in notices:
        runtime.notify(notice, "warning")
    return runtime


def system_prompt(replace: str | None, append: str | None) -> Extension | None:
    """An extension giving `--system-prompt` / `--append-system-prompt` their effect."""
    if replace is None and append is None:
        return None

    def extension(g: Any) -> None:
        def before_agent_start(event: Any) -> dict[str, str]:
            text = event.system_prompt if replace is None else replace
            return {"system_prompt": f"{text}\n\n{append}" if append else text}

        g.on("before_agent_start", before_agent_start)

    return extension
