"""The small subcommands: `auger sessions` and `auger trust`."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from auger.hosts.launch import parser


def sessions(args: list[str]) -> int:
    """`auger sessions [--all] [--json]`: the saved sessions, newest first."""
    from auger.config.paths import auger_home
    from auger.session.paths import list_sessions

    p = parser("auger sessions", "auger sessions [--all] [--json]", "List saved sessions.")
    p.add_argument("--all", action="store_true", help="every directory's, not only this one's")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    opts = p.parse_args(args)
    cwd = None if opts.all else Path(os.getcwd())
    summaries = list_sessions(auger_home(os.environ), cwd)
    if opts.json:
        sys.stdout.writelines(json.dumps(s.to_dict()) + "\n" for s in summaries)
        return 0
    if not summaries:
        sys.stdout.write(
            "No saved sessions" + ("." if cwd is None else " in this directory.") + "\n"
        )
        return 0
    now = time.time()
    for s in summaries:
        cost = "" if s.cost is None else f"  ${s.cost:.4f}"
        title = (s.name or s.title or "(untitled)")[:60]
        where = f"  {s.cwd}" if cwd is None else ""
        line = f"{s.id}  {_age(now - s.modified):>4}  {s.messages:>4} msgs{cost}  {title}{where}"
        sys.stdout.write(line + "\n")
    return 0


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"


def trust(args: list[str]) -> int:
    """`auger trust [PROJECT_DIR]`: remember the project as trusted."""
    from auger.config.paths import auger_home, display
    from auger.extensions.trust import TrustStore

    p = parser(
        "auger trust",
        "auger trust [PROJECT_DIR]",
        "Trust a project: its extensions, hooks, MCP servers and settings may run.",
    )
    p.add_argument("project", nargs="?", help="the project directory (default: here)")
    opts = p.parse_args(args)
    project = Path(opts.project or os.getcwd()).resolve()
    if not project.is_dir():
        sys.stderr.write(f"auger: {opts.project} is not a directory\n")
        return 2
    TrustStore(auger_home(os.environ)).trust(project)
    sys.stdout.write(f"trusted {display(project)}: its .auger/extensions will load\n")
    return 0
