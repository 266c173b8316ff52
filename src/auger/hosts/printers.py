"""How `auger -p` shows a run: readable text, the final text only, NDJSON, or one JSON object."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, BinaryIO, Literal, Protocol, TextIO

import msgspec

from auger.llm import escape_deep, escape_surrogates
from auger.records import (
    AfterToolCall,
    CommandOutput,
    FinishReasonDone,
    Plan,
    Record,
    TextDelta,
    TextDone,
    TurnEnd,
)

OutputMode = Literal["text", "quiet", "json", "stream-json"]
# The arguments that say best what a call did, in the order they are looked for.
_MAIN_ARGS = ("command", "path", "pattern", "url", "query", "job_id")

_encode = msgspec.json.Encoder().encode


def json_line(record: Record) -> bytes:
    """One record as `--json` prints it: its `to_dict()` as a line of JSON (a lone surrogate,
    from bytes that were not UTF-8, escaped)."""
    return _json(record.to_dict())


def _json(data: Any) -> bytes:
    try:
        return _encode(data) + b"\n"
    except UnicodeEncodeError:
        return _encode(escape_deep(data)) + b"\n"


def _utf8(text: str) -> bytes:
    return escape_surrogates(text).encode()


ERROR_CHARS = 400
"""The most of a failed call's first line shown: room for a whole `--allow` hint."""


def _words(text: str, limit: int) -> str:
    """`text`, or as many of its words as fit in `limit` characters and an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + " …"


def tool_line(record: AfterToolCall) -> str:
    """One line for a finished tool call: `[bash] ls -la (ok, 0.02 s)`."""
    args = record.args
    main = next((args[k] for k in _MAIN_ARGS if isinstance(args.get(k), str | int)), None)
    if main is None:
        main = json.dumps(args, ensure_ascii=False, separators=(",", ":")) if args else ""
    shown = " ".join(str(main).split())
    if len(shown) > 100:
        shown = shown[:99] + "…"
    result = record.result
    if result.is_error:
        first = _words(" ".join(result.content.split("\n", 1)[0].split()), ERROR_CHARS)
        outcome = f"{result.error_type or 'error'}: {first}" if first else result.error_type
    else:
        outcome = "ok"
    label = f"[{record.tool}] {shown}".rstrip()
    return f"{label} ({outcome}, {record.duration:.2f} s)"


class Printer(Protocol):
    """Receives every record of a run, then the end of it."""

    def record(self, record: Record) -> None:
        """One record of the stream."""

    def finish(self, end: TurnEnd | None, summary: dict[str, Any]) -> None:
        """The run is over; `summary` holds what the final JSON reports (and `error`, when
        the run failed before it had a turn)."""


class TextPrinter:
    """Streams the reply; successive responses are separated by a blank line, and each tool
    call is one line on `err`."""

    def __init__(self, out: BinaryIO, err: TextIO | None) -> None:
        self._out = out
        self._err = err
        self._tail = ""  # the last two characters written to `out`
        self._separate = False

    def _write(self, text: str) -> None:
        if not text:
            return
        if self._separate and self._tail:
            self._out.write(b"\n" * (2 - len(self._tail) + len(self._tail.rstrip("\n"))))
            self._tail = "\n\n"
        self._separate = False
        self._out.write(_utf8(text))
        self._tail = (self._tail + text)[-2:]

    def _end_line(self) -> None:
        if self._tail and not self._tail.endswith("\n"):
            self._out.write(b"\n")
            self._tail = self._tail[-1:] + "\n"

    def record(self, record: Record) -> None:
        """Text to `out`, tool calls to `err`."""
        kind = type(record)
        if kind is TextDelta:
            self._write(record.content)  # type: ignore[attr-defined]
        elif kind is TextDone or kind is FinishReasonDone:
            self._separate = True
        elif kind is CommandOutput:
            self._write(record.text)  # type: ignore[attr-defined]
            self._separate = True
        elif isinstance(record, Plan) and record.decision == "proposed":
            self._write(record.plan)  # plan mode ends headless turns with it, unstreamed
            self._separate = True
        elif kind is AfterToolCall and self._err is not None:
            self._end_line()
            self._out.flush()
            self._err.write(tool_line(record) + "\n")  # type: ignore[arg-type]
            self._err.flush()

    def finish(self, end: TurnEnd | None, summary: dict[str, Any]) -> None:
        """End the last line."""
        self._end_line()


class _FinalText:
    """A printer that shows the run's final text: the turn's, or what the commands said."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._said: list[str] = []

    def record(self, record: Record) -> None:
        """Remembers what commands said."""
        if type(record) is CommandOutput:
            self._said.append(record.text)

    def final_text(self, end: TurnEnd | None) -> str:
        """The turn's final text, else what the commands said."""
        return (end.text if end is not None else "") or "\n".join(self._said)


class QuietPrinter(_FinalText):
    """Only the final text (or, for a command that ran no turn, what it said)."""

    def finish(self, end: TurnEnd | None, summary: dict[str, Any]) -> None:
        """Print the final text."""
        text = self.final_text(end)
        if text:
            self._out.write(_utf8(text) + (b"" if text.endswith("\n") else b"\n"))


class StreamJsonPrinter:
    """Every record as a line of JSON (`--json`, `--output-format stream-json`)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out

    def record(self, record: Record) -> None:
        """One line."""
        self._out.write(json_line(record))

    def finish(self, end: TurnEnd | None, summary: dict[str, Any]) -> None:
        """Nothing more: `turn_end` was the last line."""


class FinalJsonPrinter(_FinalText):
    """One JSON object once the run is over (`--output-format json`, schema in the README)."""

    def finish(self, end: TurnEnd | None, summary: dict[str, Any]) -> None:
        """Print the result object."""
        usage = end.usage.to_dict() if end is not None else {}
        result: dict[str, Any] = {
            "type": "result",
            "result": self.final_text(end),
            "stop_reason": end.stop_reason if end is not None else "error",
            "is_error": summary["exit_code"] != 0,
            "exit_code": summary["exit_code"],
            "session_id": summary["session_id"],
            "duration": round(summary["duration"], 3),
            "model_calls": summary["model_calls"],
            "tool_calls": summary["tool_calls"],
            "usage": usage,
            "cost": usage.get("cost"),
        }
        error = end.error if end is not None else summary.get("error")
        if error:
            result["error"] = dict(error)
        if end is not None and end.unexecuted_calls:
            result["unexecuted_calls"] = list(end.unexecuted_calls)
        self._out.write(_json(result))


def printer(mode: OutputMode, out: BinaryIO, err: TextIO) -> Printer:
    """The printer for an output mode."""
    makers: dict[str, Callable[[], Printer]] = {
        "text": lambda: TextPrinter(out, err),
        "quiet": lambda: QuietPrinter(out),
        "json": lambda: FinalJsonPrinter(out),
        "stream-json": lambda: StreamJsonPrinter(out),
    }
    return makers[mode]()
