"""The `auger` command: argv to a host. Imports nothing heavy before it knows the path."""

from __future__ import annotations

import errno
import os
import sys

TYPE_CHECKING = False  # importing typing would slow `auger --version`
if TYPE_CHECKING:
    import argparse

_OUTPUT_ERRORS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""Write errors that mean stdout stopped taking output (a closed pipe, a full disk)."""

USAGE = "usage: auger [-p] [--json] [--model PROVIDER/NAME] [options] [PROMPT ...]"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = sys.argv[1:] if argv is None else argv
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        if sys.stderr is not None:
            sys.stderr.write("auger: standard output is closed: nowhere to print\n")
        return 2
    if args in (["--version"], ["-V"]):
        from auger._version import __version__

        sys.stdout.write(f"auger {__version__}\n")
        return 0
    try:
        os.getcwd()
    except FileNotFoundError:
        sys.stderr.write("auger: the working directory no longer exists; cd to one that does\n")
        return 2
    try:
        code = _run(args)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at interpreter exit
        return code
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRORS:
            raise
        from auger.hosts.stdout import stdout_failed

        return stdout_failed(exc)


def _parser() -> argparse.ArgumentParser:
    from auger._version import __version__
    from auger.hosts.launch import add_options, parser

    p = parser("auger", USAGE.removeprefix("usage: "), "A coding agent you own.")
    p.add_argument("prompt", nargs="*", help="the prompt (read from stdin when absent)")
    p.add_argument("-p", "--print", action="store_true", help="run one prompt and print the reply")
    p.add_argument("--json", action="store_true", help="with -p: print every record as NDJSON")
    add_options(p)
    p.add_argument("-V", "--version", action="version", version=f"auger {__version__}")
    return p


def _run(args: list[str]) -> int:
    if args[:1] == ["trust"]:
        return _trust(args[1:])
    if args[:1] == ["sessions"]:
        return _sessions(args[1:])
    if args[:1] in (["models"], ["login"], ["logout"]):
        from auger.hosts import providers_cli

        return getattr(providers_cli, f"{args[0]}_main")(args[1:])
    if args[:1] == ["acp"]:
        from auger.hosts.acp import main as acp

        return acp(args[1:])
    if args[:1] == ["batch"]:
        from auger.hosts.batch import main as batch

        return batch(args[1:])
    if args[:1] == ["rpc"]:
        from auger.hosts.rpc import main as rpc

        return rpc(args[1:])
    from auger.hosts.launch import check

    p = _parser()
    opts = check(p, p.parse_args(args))
    if not opts.print:  # the interactive terminal (imported only on this path)
        from auger.hosts.terminal.app import run_terminal

        return run_terminal(opts)
    from auger.llm.text import decode_input, escape_surrogates

    prompt = escape_surrogates(" ".join(opts.prompt))
    if not sys.stdin.isatty():
        piped = decode_input(sys.stdin.buffer.read())
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


def _headless(opts: argparse.Namespace, prompt: str) -> int:
    import asyncio
    import os
    from pathlib import Path

    from auger.config.errors import ConfigError
    from auger.hosts.headless import HeadlessHost, run_print
    from auger.hosts.launch import build_runtime

    async def run() -> int:
        try:
            runtime = await build_runtime(opts, HeadlessHost(), Path(os.getcwd()))
        except ConfigError as exc:
            sys.stderr.write(f"auger: {exc}\n")
            return 2
        out, err = sys.stdout.buffer, sys.stderr
        return await run_print(runtime, prompt, json_mode=opts.json, out=out, err=err)

    return asyncio.run(run())


if __name__ == "__main__":
    raise SystemExit(main())
