"""The options of the long-running hosts (`auger acp`, `auger rpc`) and the Runtimes they build."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from auger.extensions.source import Extension, Source
from auger.host import Host
from auger.runtime import Runtime
from auger.session.store import SessionFile


def parse(
    command: str, args: list[str], description: str, *, sessions: bool = False
) -> argparse.Namespace:
    """`auger COMMAND`'s options (with `sessions`, the ones choosing a saved session too);
    a bad one prints the reason and exits with status 2."""
    usage = f"auger {command} [--model PROVIDER/NAME] [options]"

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            sys.stderr.write(f"auger: {message}\nusage: {usage}\n")
            raise SystemExit(2)

    p = Parser(prog=f"auger {command}", description=description, usage=usage)
    p.add_argument("--model", help="PROVIDER/NAME, e.g. anthropic/claude-sonnet-4-5")
    p.add_argument("--max-steps", type=int, default=100, metavar="N", help="model calls per turn")
    p.add_argument("--reasoning", choices=("low", "medium", "high"), help="reasoning effort")
    p.add_argument("--no-tools", action="store_true", help="no tools at all")
    p.add_argument("--tools", help="comma-separated allowlist of tools")
    p.add_argument("--extension", action="append", default=[], metavar="PATH")
    p.add_argument("--no-skills", action="store_true", help="no Agent Skills")
    p.add_argument("--no-agents-md", action="store_true", help="no AGENTS.md / CLAUDE.md")
    p.add_argument("--no-extensions", action="store_true", help="skip discovered extensions")
    p.add_argument("--no-save", action="store_true", help="keep sessions in memory only")
    if sessions:
        p.add_argument("-c", "--continue", dest="continue_", action="store_true")
        p.add_argument("-r", "--resume", metavar="ID", help="resume a session (an id prefix)")
        p.add_argument("--session", metavar="PATH", help="use this session file")
    opts = p.parse_args(args)
    if opts.max_steps < 1:
        p.error("--max-steps must be at least 1")
    return opts


def build_runtime(
    opts: argparse.Namespace,
    host: Host,
    cwd: Path,
    extensions: Sequence[Source | Extension | tuple[str, Extension]] = (),
    session: SessionFile | None = None,
) -> Runtime:
    """A Runtime for `cwd` as the options say, continuing `session` if given, with
    `extensions` loaded after the discovered ones. A `ConfigError` (no model, a missing
    key…) propagates."""
    from auger.config.paths import auger_home
    from auger.loader import discover

    home = auger_home(os.environ)
    sources, notices = discover(
        home,
        cwd,
        host,
        paths=opts.extension,
        discovered=not opts.no_extensions,
    )
    tools = None
    if opts.tools is not None:
        tools = [t.strip() for t in opts.tools.split(",") if t.strip()]
    disable = [
        name for name, off in (("skills", opts.no_skills), ("agents_md", opts.no_agents_md)) if off
    ]
    runtime = Runtime(
        opts.model,
        cwd=cwd,
        home=home,
        session=session,
        save=not opts.no_save,
        extensions=[*sources, *extensions],
        disable=disable,
        host=host,
        max_steps=opts.max_steps,
        bundled=not opts.no_tools,
        tools=tools,
        reasoning=opts.reasoning,
    )
    for notice in notices:
        runtime.notify(notice, "warning")
    return runtime
