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
    from auger import sessions
    from auger.config import auger_home

    p = parser("auger sessions", "auger sessions [--all] [--json]", "List saved sessions.")
    p.add_argument("--all", action="store_true", help="every directory's, not only this one's")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    opts = p.parse_args(args)
    cwd = None if opts.all else Path(os.getcwd())
    summaries = sessions.list(auger_home(os.environ), cwd)
    if opts.json:  # both times as ISO 8601 UTC, as the session header writes `created`
        rows = ({**s.to_dict(), "modified": sessions.timestamp(s.modified)} for s in summaries)
        sys.stdout.writelines(json.dumps(row) + "\n" for row in rows)
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
    """`auger trust [PROJECT_DIR]`, `auger trust --list`, `auger trust --revoke DIR`."""
    from auger.config import TrustStore, auger_home, display

    p = parser(
        "auger trust",
        "auger trust [PROJECT_DIR] | auger trust --list | auger trust --revoke DIR",
        "Trust a project: its extensions, hooks, MCP servers, providers and permission "
        "settings apply (SPEC §7).",
    )
    p.add_argument("project", nargs="?", help="the project directory (default: here)")
    p.add_argument("--list", action="store_true", help="list the trusted directories")
    p.add_argument("--revoke", metavar="DIR", help="stop trusting DIR")
    opts = p.parse_args(args)
    if sum(map(bool, (opts.project, opts.list, opts.revoke))) > 1:
        p.error("give one of PROJECT_DIR, --list and --revoke DIR")
    store = TrustStore(auger_home(os.environ))
    if opts.list:
        sys.stdout.writelines(f"{display(Path(d))}\n" for d in store.trusted())
        return 0
    if opts.revoke:
        if not store.revoke(Path(opts.revoke)):
            sys.stderr.write(f"auger: {opts.revoke} was not trusted (see auger trust --list)\n")
            return 2
        sys.stdout.write(f"no longer trusted: {display(Path(opts.revoke).resolve())}\n")
        return 0
    from auger.config import project_root

    given = Path(opts.project or os.getcwd()).resolve()
    if not given.is_dir():
        sys.stderr.write(f"auger: {opts.project} is not a directory\n")
        return 2
    project = project_root(given, store.path.parent)  # a subfolder trusts its project
    store.trust(project)
    sys.stdout.write(
        f"trusted {display(project)}: its extensions, hooks, MCP servers, providers and "
        "permission settings now apply\n"
    )
    return 0
