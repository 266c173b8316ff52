"""The `auger` command: argv to a host. Imports nothing heavy before it knows the path."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # importing typing would slow `auger --version`
if TYPE_CHECKING:
    import argparse

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
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from auger._version import __version__

        sys.stdout.write(f"auger {__version__}\n")
        return 0
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
    opts = check(p, p.parse_args(args))
    if opts.resume == "" and not (opts.print is False and _tty()):
        from auger.hosts.manage import sessions

        return sessions([])  # `-r` without an id, outside a terminal: which ones there are
    if not opts.print:  # the interactive terminal (imported only on this path)
        from auger.hosts.terminal.app import run_terminal

        return run_terminal(opts)
    prompt = " ".join(opts.prompt)
    if not sys.stdin.isatty():
        piped = sys.stdin.read()
        prompt = f"{prompt}\n\n{piped}" if prompt and piped.strip() else (prompt or piped)
    if not prompt.strip():
        sys.stderr.write("auger: empty prompt — pass it as an argument or on stdin\n")
        return 2
    from auger.hosts.headless import main as headless

    return headless(opts, prompt)


def _tty() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


if __name__ == "__main__":
    raise SystemExit(main())
