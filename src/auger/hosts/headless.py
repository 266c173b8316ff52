"""`auger -p`: run one prompt (or command) and print it the way `--output-format` says."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from auger.host import NullHost
from auger.hosts.printers import OutputMode, json_line, printer
from auger.hosts.signals import StopSignals
from auger.hosts.stdout import stdout_failed
from auger.llm import UserPart, escape_surrogates
from auger.records import AfterToolCall, FinishReasonDone, Notify, TurnEnd
from auger.runtime import Runtime

__all__ = ["HeadlessHost", "exit_code", "json_line", "main", "run_print"]

EXIT_CODES = {
    "completed": 0,
    "error": 1,
    "guardrail_blocked": 1,
    "max_steps": 3,
    "length": 3,
    "context_window": 3,
    "content_filter": 3,
    "cancelled": 130,
}
CONFIG_ERRORS = frozenset({"auth", "not_found", "unknown_command"})


def exit_code(end: TurnEnd | None) -> int:
    """SPEC §5: how `auger -p` exits after a turn."""
    if end is None:
        return 1
    if end.stop_reason == "error" and end.error and end.error.get("kind") in CONFIG_ERRORS:
        return 2
    return EXIT_CODES.get(end.stop_reason, 1)


class HeadlessHost(NullHost):
    """A host that cannot ask: every question is declined (a permission denied), and the
    Runtime says so on the stream."""


def notice_line(record: Notify) -> str:
    """How a `notify` record reads on stderr: one line."""
    prefix = "" if record.level == "info" else f"{record.level}: "
    return f"auger: {prefix}{record.message}\n"


class _Flusher:
    """Flushes `out` once the event loop is idle, so a burst of records costs one write."""

    def __init__(self, out: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        self._out = out
        self._loop = loop
        self._scheduled = False

    def request(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        with contextlib.suppress(OSError):  # run_print's next write reports it
            self._out.flush()


async def run_print(
    runtime: Runtime,
    prompt: str,
    *,
    mode: OutputMode = "text",
    out: BinaryIO,
    err: TextIO,
    attachments: Sequence[UserPart] = (),
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Run one prompt, render it to `out` (UTF-8 bytes; tool lines to `err` in text mode), and
    return the exit code (SPEC §5). A leading `/` runs a command only when it names one."""
    # SIGTERM and SIGHUP clean up as Ctrl-C does: the turn is cancelled, its command and
    # background jobs killed, their temp files removed. A second signal exits at once.
    with StopSignals(runtime.cancel) as signals:
        return await _run(runtime, prompt, mode, out, err, attachments, clock, signals)


async def _run(
    runtime: Runtime,
    prompt: str,
    mode: OutputMode,
    out: BinaryIO,
    err: TextIO,
    attachments: Sequence[UserPart],
    clock: Callable[[], float],
    signals: StopSignals,
) -> int:
    flusher = _Flusher(out, asyncio.get_running_loop())
    show = printer(mode, out, err)
    started = clock()
    end: TurnEnd | None = None
    failed: OSError | None = None
    model_calls = tool_calls = 0
    try:
        words = prompt.strip()[1:].split(maxsplit=1) if prompt.startswith("/") else []
        name, args = [*words, "", ""][:2]
        if name and name in runtime.commands:
            stream = runtime.run_command(name, args.strip())
        elif name and (typo := _mistyped_command(name, runtime.commands)):
            err.write(f"auger: unknown command /{name} — did you mean /{typo}?\n")
            return 2
        else:
            stream = runtime.prompt(prompt, attachments)
        async for record in stream:
            show.record(record)
            kind = type(record)
            if kind is TurnEnd:
                end = record  # type: ignore[assignment]
            elif kind is FinishReasonDone:
                model_calls += 1
            elif kind is AfterToolCall:
                tool_calls += 1
            elif kind is Notify:
                err.write(escape_surrogates(notice_line(record)))  # type: ignore[arg-type]
                err.flush()
            flusher.request()
        code = exit_code(end)
        show.finish(
            end,
            {
                "exit_code": code,
                "session_id": runtime.session_id,
                "duration": clock() - started,
                "model_calls": model_calls,
                "tool_calls": tool_calls,
            },
        )
        out.flush()
    except OSError as exc:  # stdout stopped taking output: a closed pipe, a full disk
        runtime.cancel()
        failed = exc
    finally:
        before_close = len(signals.received)
        await runtime.close()
    stopped_by = signals.received
    if failed is not None:
        code = stdout_failed(failed)
        return exit_code(end) if isinstance(failed, BrokenPipeError) else code
    if stopped_by and (stopped_by[0] != signal.SIGINT or len(stopped_by) > before_close):
        return 128 + stopped_by[0]  # a Ctrl-C while closing: the user stopped the process
    return exit_code(end)


def _mistyped_command(name: str, commands: Iterable[str]) -> str | None:
    """The command `/name` is most likely a typo of; a path such as `/usr/bin` is none."""
    if "/" in name:
        return None
    import difflib

    close = difflib.get_close_matches(name, list(commands), n=1, cutoff=0.8)
    return close[0] if close else None


def output_mode(opts: argparse.Namespace) -> OutputMode:
    """`--output-format`, `--json` and `--quiet` as one mode."""
    if opts.json or opts.output_format == "stream-json":
        return "stream-json"
    if opts.output_format == "json":
        return "json"
    return "quiet" if opts.quiet else "text"


def main(opts: argparse.Namespace, prompt: str) -> int:
    """`auger -p`: build the Runtime the options describe and run `prompt` in it."""
    from auger.commands import attach, attach_image
    from auger.config import ConfigError
    from auger.hosts.launch import options
    from auger.loader import build

    cwd = Path(os.getcwd())

    async def run() -> int:
        try:
            attachments = [*attach(prompt, cwd).parts, *(attach_image(i, cwd) for i in opts.image)]
            runtime = await build(options(opts, cwd), HeadlessHost())
        except ConfigError as exc:
            sys.stderr.write(f"auger: {exc}\n")
            if output_mode(opts) == "json":  # a script reading stdout still gets its object
                failed = {"kind": "config", "message": str(exc)}
                summary: dict[str, Any] = {"exit_code": 2, "session_id": None, "duration": 0.0}
                summary |= {"model_calls": 0, "tool_calls": 0, "error": failed}
                printer("json", sys.stdout.buffer, sys.stderr).finish(None, summary)
                sys.stdout.flush()
            return 2
        return await run_print(
            runtime,
            prompt,
            mode=output_mode(opts),
            out=sys.stdout.buffer,
            err=sys.stderr,
            attachments=attachments,
        )

    return asyncio.run(run())
