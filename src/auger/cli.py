"""The `auger` command: argv to a host. Imports nothing heavy before it knows the path."""

from __future__ import annotations

import sys

USAGE = "usage: auger [-p] [--json] [--model PROVIDER/NAME] [options] [PROMPT ...]"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from auger._version import __version__

        sys.stdout.write(f"auger {__version__}\n")
        return 0
    return _run(args)


def _parser() -> object:
    import argparse

    from auger._version import __version__

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            sys.stderr.write(f"auger: {message}\n{USAGE}\n")
            raise SystemExit(2)

    p = Parser(prog="auger", description="A coding agent you own.", usage=USAGE[7:])
    p.add_argument("prompt", nargs="*", help="the prompt (read from stdin when absent)")
    p.add_argument("-p", "--print", action="store_true", help="run one prompt and print the reply")
    p.add_argument("--json", action="store_true", help="with -p: print every record as NDJSON")
    p.add_argument("--model", help="PROVIDER/NAME, e.g. anthropic/claude-sonnet-4-5")
    p.add_argument("--max-steps", type=int, default=None, metavar="N", help="model calls per turn")
    p.add_argument("--reasoning", choices=("low", "medium", "high"), help="reasoning effort")
    p.add_argument("--no-tools", action="store_true", help="no tools at all")
    p.add_argument("--tools", help="comma-separated allowlist of tools")
    p.add_argument(
        "--extension",
        action="append",
        default=[],
        metavar="PATH",
        help="load an extension file (repeatable)",
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="continue the latest session in this directory",
    )
    p.add_argument("-r", "--resume", metavar="ID", help="resume a session (a unique id prefix)")
    p.add_argument("--session", metavar="PATH", help="use this session file")
    p.add_argument("--no-save", action="store_true", help="keep this session in memory only")
    p.add_argument("--no-skills", action="store_true", help="no Agent Skills")
    p.add_argument("--no-agents-md", action="store_true", help="no AGENTS.md / CLAUDE.md")
    p.add_argument(
        "--no-extensions",
        action="store_true",
        help="skip installed, user and project extensions",
    )
    p.add_argument("-V", "--version", action="version", version=f"auger {__version__}")
    return p


def _run(args: list[str]) -> int:
    if args[:1] == ["trust"]:
        return _trust(args[1:])
    if args[:1] == ["sessions"]:
        return _sessions(args[1:])
    if args[:1] == ["acp"]:
        from auger.hosts.acp import main as acp

        return acp(args[1:])
    if args[:1] == ["rpc"]:
        from auger.hosts.rpc import main as rpc

        return rpc(args[1:])
    opts = _parser().parse_args(args)  # type: ignore[attr-defined]
    if not opts.print:  # the interactive terminal (imported only on this path)
        from auger.hosts.terminal.app import run_terminal

        return run_terminal(opts)
    if opts.max_steps is not None and opts.max_steps < 1:
        sys.stderr.write(f"auger: --max-steps must be at least 1\n{USAGE}\n")
        return 2
    prompt = " ".join(opts.prompt)
    if not sys.stdin.isatty():
        piped = sys.stdin.read()
        prompt = f"{prompt}\n\n{piped}" if prompt and piped.strip() else (prompt or piped)
    if not prompt.strip():
        sys.stderr.write("auger: empty prompt — pass it as an argument or on stdin\n")
        return 2
    return _headless(opts, prompt)


def _trust(args: list[str]) -> int:
    import os
    from pathlib import Path

    from auger.config.paths import auger_home, display
    from auger.extensions.trust import TrustStore

    if len(args) > 1:
        sys.stderr.write("auger: usage: auger trust [PROJECT_DIR]\n")
        return 2
    project = Path(args[0] if args else os.getcwd()).resolve()
    if not project.is_dir():
        sys.stderr.write(f"auger: {args[0]} is not a directory\n")
        return 2
    TrustStore(auger_home(os.environ)).trust(project)
    sys.stdout.write(f"trusted {display(project)}: its .auger/extensions will load\n")
    return 0


def _sessions(args: list[str]) -> int:
    import json
    import os
    import time
    from pathlib import Path

    from auger.config.paths import auger_home
    from auger.session.paths import list_sessions

    unknown = [a for a in args if a not in ("--all", "--json")]
    if unknown:
        sys.stderr.write(
            f"auger: unknown option {unknown[0]}\nusage: auger sessions [--all] [--json]\n"
        )
        return 2
    cwd = None if "--all" in args else Path(os.getcwd())
    summaries = list_sessions(auger_home(os.environ), cwd)
    if "--json" in args:
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


def _headless(opts: object, prompt: str) -> int:
    import asyncio
    import os
    from pathlib import Path

    from auger.config.errors import ConfigError
    from auger.config.paths import auger_home
    from auger.hosts.headless import HeadlessHost, run_print
    from auger.loader import discover, open_session
    from auger.runtime import Runtime

    host = HeadlessHost(sys.stderr)
    tools = None
    if opts.tools is not None:  # type: ignore[attr-defined]
        tools = [t.strip() for t in opts.tools.split(",") if t.strip()]  # type: ignore[attr-defined]
    try:
        cwd = Path(os.getcwd())
        home = auger_home(os.environ)
        sources, notices = discover(
            home,
            cwd,
            host,
            paths=opts.extension,  # type: ignore[attr-defined]
            discovered=not opts.no_extensions,  # type: ignore[attr-defined]
        )
        session = open_session(
            home,
            cwd,
            continue_=opts.continue_,  # type: ignore[attr-defined]
            resume=opts.resume,  # type: ignore[attr-defined]
            path=opts.session,  # type: ignore[attr-defined]
        )
        runtime = Runtime(
            opts.model,  # type: ignore[attr-defined]
            cwd=cwd,
            home=home,
            session=session,
            save=not opts.no_save,  # type: ignore[attr-defined]
            extensions=sources,
            disable=[
                name
                for name, off in (
                    ("skills", opts.no_skills),  # type: ignore[attr-defined]
                    ("agents_md", opts.no_agents_md),  # type: ignore[attr-defined]
                )
                if off
            ],
            host=host,
            max_steps=opts.max_steps or 100,  # type: ignore[attr-defined]
            bundled=not opts.no_tools,  # type: ignore[attr-defined]
            tools=tools,
            reasoning=opts.reasoning,  # type: ignore[attr-defined]
        )
    except ConfigError as exc:
        sys.stderr.write(f"auger: {exc}\n")
        return 2
    for notice in notices:
        runtime.notify(notice, "warning")
    return asyncio.run(
        run_print(runtime, prompt, json_mode=opts.json, out=sys.stdout.buffer)  # type: ignore[attr-defined]
    )


if __name__ == "__main__":
    raise SystemExit(main())
