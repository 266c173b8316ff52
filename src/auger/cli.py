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

USAGE = "usage: auger [-p] [--model PROVIDER/NAME] [options] [PROMPT ...] | auger COMMAND ..."

# Every subcommand, one entry each: name -> ("module:function", one line for `auger --help`).
# The function takes the remaining argv and returns the exit status; it answers `--help`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "sessions": ("auger.hosts.manage:sessions", "list saved sessions"),
    "trust": ("auger.hosts.manage:trust", "trust a project, so its extensions and hooks may run"),
    "models": ("auger.hosts.providers_cli:models_main", "list the catalog's models and prices"),
    "login": ("auger.hosts.providers_cli:login_main", "keep a provider's API key in auth.json"),
    "logout": ("auger.hosts.providers_cli:logout_main", "forget a provider's API key"),
    "acp": ("auger.hosts.acp:main", "serve an editor over the Agent Client Protocol"),
    "rpc": ("auger.hosts.rpc:main", "JSONL commands on stdin, records on stdout"),
    "batch": ("auger.hosts.batch:main", "run many tasks at once, locally or on Ray"),
}


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
        code = _dispatch(args)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at interpreter exit
        return code
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRORS:
            raise
        from auger.hosts.stdout import stdout_failed

        return stdout_failed(exc)


def _dispatch(args: list[str]) -> int:
    if args and args[0] in SUBCOMMANDS:
        from importlib import import_module

        module, _, function = SUBCOMMANDS[args[0]][0].partition(":")
        return int(getattr(import_module(module), function)(args[1:]))
    mistyped = _mistyped(args[0]) if args else None
    if mistyped:
        sys.stderr.write(f"auger: unknown command {args[0]!r} — did you mean {mistyped!r}?\n")
        return 2
    return _run(args)


def _mistyped(word: str) -> str | None:
    """The subcommand `word` is most likely a typo of, if it is a lone word close to one."""
    if not word.isalpha():
        return None
    import difflib

    close = difflib.get_close_matches(word.lower(), SUBCOMMANDS, n=1, cutoff=0.75)
    return close[0] if close else None


def _commands_help() -> str:
    width = max(map(len, SUBCOMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in SUBCOMMANDS.items())
    return f"commands (auger COMMAND --help for each):\n{rows}"


def _parser() -> argparse.ArgumentParser:
    import argparse

    from auger._version import __version__
    from auger.hosts.launch import add_options, parser

    p = parser("auger", USAGE.removeprefix("usage: "), "A coding agent you own.")
    p.epilog = _commands_help()
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("prompt", nargs="*", help="the prompt (read from stdin when absent)")
    p.add_argument("-p", "--print", action="store_true", help="run one prompt and print the reply")
    add_print_options(p)
    add_options(p)
    p.add_argument("-V", "--version", action="version", version=f"auger {__version__}")
    return p


def add_print_options(p: argparse.ArgumentParser) -> None:
    """How `-p` prints: text, the final text only, one JSON object, or NDJSON records."""
    p.add_argument("--json", action="store_true", help="with -p: every record as NDJSON")
    p.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        help="with -p: text (default), one final JSON object, or stream-json (= --json)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="with -p: the final text only")
    p.add_argument(
        "-i",
        "--image",
        action="append",
        default=[],
        metavar="FILE",
        help="with -p: attach an image to the prompt",
    )


def _run(args: list[str]) -> int:
    from auger.hosts.launch import check

    p = _parser()
    opts, unknown = p.parse_known_args(args)
    if unknown:
        from auger.hosts.suggest import unrecognized

        p.error(unrecognized(p, unknown))
    opts = check(p, opts)
    if opts.model and "/" in opts.model:
        typo = _model_typo(opts.model)
        if typo:
            p.error(typo)
    if opts.resume == "" and not (opts.print is False and _tty()):
        from auger.hosts.manage import sessions

        return sessions([])  # `-r` without an id, outside a terminal: which ones there are
    if not opts.print:  # the interactive terminal (imported only on this path)
        from auger.hosts.terminal.app import run_terminal

        return run_terminal(opts)
    from auger.llm import decode_input, escape_surrogates

    prompt = escape_surrogates(" ".join(opts.prompt))
    if not sys.stdin.isatty():
        piped = decode_input(sys.stdin.buffer.read())
        prompt = f"{prompt}\n\n{piped}" if prompt and piped.strip() else (prompt or piped)
    if not prompt.strip():
        sys.stderr.write("auger: empty prompt — pass it as an argument or on stdin\n")
        return 2
    from auger.hosts.headless import main as headless

    return headless(opts, prompt)


def _model_typo(spec: str) -> str | None:
    """A typo in `--model` (read against the catalog first, settings only for a near miss)."""
    import os
    from pathlib import Path

    from auger.hosts.suggest import mistyped_model
    from auger.llm import known_models

    if spec in known_models():
        return None
    from auger.config import ConfigError, auger_home, load_settings

    try:
        settings = load_settings(auger_home(os.environ), Path.cwd())
    except (ConfigError, OSError):  # reported when the Runtime reads them
        settings = {}
    return mistyped_model(spec, settings)


def _tty() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


if __name__ == "__main__":
    raise SystemExit(main())
