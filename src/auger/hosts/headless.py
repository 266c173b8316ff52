"""`auger -p`: print the reply as it streams (text), or every record as a JSON line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import BinaryIO, TextIO

import msgspec

from auger.host import NullHost
from auger.hosts.stdout import stdout_failed
from auger.llm.records import Record
from auger.llm.text import escape_deep, escape_surrogates
from auger.records import CommandOutput, Notify, TextDelta, TurnEnd
from auger.runtime import Runtime

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
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What stops `auger -p` cleanly; SIGTERM exits 143 and SIGHUP 129 (128 + the signal)."""

_encode = msgspec.json.Encoder().encode


def json_line(record: Record) -> bytes:
    """One record as `--json` prints it: its `to_dict()` as a line of JSON (a lone surrogate,
    from bytes that were not UTF-8, escaped)."""
    data = record.to_dict()
    try:
        return _encode(data) + b"\n"
    except UnicodeEncodeError:
        return _encode(escape_deep(data)) + b"\n"


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
    runtime: Runtime, prompt: str, *, json_mode: bool, out: BinaryIO, err: TextIO
) -> int:
    """Run one prompt, render it to `out` (UTF-8 bytes) and its notices to `err`, and return
    the exit code (SPEC §5)."""
    loop = asyncio.get_running_loop()
    flusher = _Flusher(out, loop)
    stopped_by: list[int] = []

    def on_signal(signum: int) -> None:
        # SIGTERM and SIGHUP clean up as Ctrl-C does: the turn is cancelled, its command and
        # background jobs killed, their temp files removed. A second signal exits at once.
        stopped_by.append(signum)
        if len(stopped_by) > 1:
            os._exit(128 + signum)
        runtime.cancel()

    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, on_signal, signum)
    end: TurnEnd | None = None
    failed: OSError | None = None
    wrote_text = ""
    try:
        stream = runtime.prompt(prompt)
        if prompt.startswith("/"):
            name, _, args = prompt[1:].partition(" ")
            stream = runtime.run_command(name, args.strip())
        async for record in stream:
            if json_mode:
                out.write(json_line(record))
            elif type(record) is TextDelta:
                out.write(escape_surrogates(record.content).encode())
                wrote_text = record.content
            elif type(record) is CommandOutput:
                wrote_text = record.text if record.text.endswith("\n") else record.text + "\n"
                out.write(escape_surrogates(wrote_text).encode())
            if type(record) is Notify:
                err.write(escape_surrogates(notice_line(record)))
                err.flush()
            elif type(record) is TurnEnd:
                end = record
            flusher.request()
        if not json_mode and wrote_text and not wrote_text.endswith("\n"):
            out.write(b"\n")
        out.flush()
    except OSError as exc:  # stdout stopped taking output: a closed pipe, a full disk
        runtime.cancel()
        failed = exc
    finally:
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        await runtime.close()
    if failed is not None:
        code = stdout_failed(failed)
        return exit_code(end) if isinstance(failed, BrokenPipeError) else code
    if stopped_by and stopped_by[0] != signal.SIGINT:
        return 128 + stopped_by[0]
    return exit_code(end)
