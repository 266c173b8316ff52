"""The small subcommands: `auger sessions`, `auger trust`, `auger models`, `auger login`."""

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


def models(args: list[str]) -> int:
    """`auger models [--json]`: the models of the catalog and of configured providers."""
    from auger.config.paths import auger_home
    from auger.config.settings import load_settings
    from auger.llm.catalog import known_models

    p = parser("auger models", "auger models [--json]", "List the models auger knows.")
    p.add_argument("--json", action="store_true", help="a JSON list")
    opts = p.parse_args(args)
    settings = load_settings(auger_home(os.environ), Path(os.getcwd()))
    found = list(known_models())
    providers = settings.get("providers")
    for name, raw in (providers if isinstance(providers, dict) else {}).items():
        listed = raw.get("models") if isinstance(raw, dict) else None
        found += [f"{name}/{m}" for m in (listed if isinstance(listed, dict) else {})]
    if opts.json:
        sys.stdout.write(json.dumps(found) + "\n")
    else:
        sys.stdout.writelines(f"{m}\n" for m in found)
    return 0


def login(args: list[str]) -> int:
    """`auger login PROVIDER`: read an API key (hidden in a terminal) and keep it in auth.json."""
    from auger.config.credentials import save_credential
    from auger.config.errors import ConfigError
    from auger.config.models import provider_config
    from auger.config.paths import auger_home, display
    from auger.config.settings import load_settings

    p = parser(
        "auger login",
        "auger login PROVIDER",
        "Store a provider's API key in ~/.auger/auth.json (mode 0600); the key is read from "
        "the terminal without echo, or from stdin.",
    )
    p.add_argument("provider", help="e.g. anthropic or openai")
    opts = p.parse_args(args)
    home = auger_home(os.environ)
    try:
        config = provider_config(opts.provider, {}, load_settings(home, Path(os.getcwd())))
    except ConfigError as exc:
        sys.stderr.write(f"auger: {exc}\n")
        return 2
    if not config.key_env:
        sys.stderr.write(f"auger: provider {opts.provider!r} takes no key variable\n")
        return 2
    if sys.stdin.isatty():
        import getpass

        key = getpass.getpass(f"{config.key_env}: ")
    else:
        key = sys.stdin.readline()
    if not key.strip():
        sys.stderr.write("auger: no key given\n")
        return 2
    path = save_credential(home, config.key_env, key.strip())
    sys.stdout.write(f"saved {config.key_env} in {display(path)}\n")
    return 0
