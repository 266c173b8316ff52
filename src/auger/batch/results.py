"""Results of a batch: one JSON line per finished task, appended as each finishes.

The file is the batch's memory: a rerun skips the ids it already holds, a torn last line (a
crash mid-write) is ignored, and at the end of a batch the file is rewritten in task order so
two runs of the same tasks give the same file apart from timings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from auger.llm.usage import Usage
from auger.records import StopReason as TurnStopReason

# a task also ends on the batch's own limits, or before it starts
StopReason = Literal[TurnStopReason, "time_limit", "cost_limit", "setup_failed"]


class Result(msgspec.Struct, frozen=True, omit_defaults=False):
    """How one task ended.

    `solved` is the check's verdict (`None` without a check, or when the agent never ran);
    `session` is the session file, relative to the results file's directory when it is below
    it; `attempts` counts runs (2 when a dead worker's task was retried).
    """

    id: str
    stop_reason: StopReason
    solved: bool | None
    usage: Usage
    cost: float | None
    duration: float
    model_calls: int
    tool_calls: int
    session: str | None
    error: str | None = None
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values."""
        data = msgspec.structs.asdict(self)
        data["usage"] = self.usage.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """A Result from `to_dict()`'s shape (raises `ValueError` when it is not one)."""
        fields = dict(data)
        try:
            fields["usage"] = Usage.from_dict(fields.get("usage") or {})
            return msgspec.convert(fields, cls)
        except (msgspec.ValidationError, TypeError, AttributeError) as exc:
            raise ValueError(str(exc)) from None


def read_results(path: str | Path) -> list[Result]:
    """The results a file holds, later lines winning for a repeated id; bad lines skipped."""
    file = Path(path)
    if not file.exists():
        return []
    found: dict[str, Result] = {}
    for line in file.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            result = Result.from_dict(msgspec.json.decode(line))
        except (msgspec.DecodeError, ValueError):
            continue
        found[result.id] = result
    return list(found.values())


class ResultsFile:
    """Appends results as they finish, each line flushed to disk before the next."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.sessions = self.path.parent / f"{self.path.stem}.sessions"
        self.done: dict[str, Result] = {r.id: r for r in read_results(self.path)}

    def session_path(self, task_id: str) -> Path:
        """Where the session of `task_id` is kept."""
        return self.sessions / f"{task_id}.jsonl"

    def relative(self, path: Path) -> str:
        """`path` as it is recorded: relative to the results file's directory when inside it."""
        try:
            return str(path.relative_to(self.path.parent))
        except ValueError:
            return str(path)

    def append(self, result: Result) -> None:
        """Record one finished task."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("ab") as out:
            if out.tell() and not _ends_with_newline(self.path):
                out.write(b"\n")  # a torn line from an earlier crash stays on its own line
            out.write(msgspec.json.encode(result.to_dict()) + b"\n")
            out.flush()
            os.fsync(out.fileno())
        self.done[result.id] = result

    def finish(self, order: Sequence[str]) -> None:
        """Rewrite the file in task order (ids not in `order` last), atomically."""
        rank = {task_id: i for i, task_id in enumerate(order)}
        ordered = sorted(self.done.values(), key=lambda r: (rank.get(r.id, len(rank)), r.id))
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_bytes(b"".join(msgspec.json.encode(r.to_dict()) + b"\n" for r in ordered))
        os.replace(tmp, self.path)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def summary(results: Iterable[Result]) -> str:
    """The table `auger batch --summary` prints: totals, then one row per task."""
    rows = list(results)
    if not rows:
        return "No results.\n"
    checked = [r for r in rows if r.solved is not None]
    solved = sum(1 for r in checked if r.solved)
    costs = [r.cost for r in rows if r.model_calls]  # a task that never called a model cost 0
    total_cost = None if None in costs else sum(c or 0.0 for c in costs)
    usage = sum((r.usage for r in rows), Usage())
    rate = f"{solved}/{len(checked)} ({100 * solved / len(checked):.0f}%)" if checked else "–"
    lines = [
        f"tasks {len(rows)} · solved {rate} · tokens {usage.input_tokens:,} in "
        f"/ {usage.output_tokens:,} out · cost {_money(total_cost)} · "
        f"time {sum(r.duration for r in rows):.1f} s",
        "",
        f"{'id':<24} {'solved':<6} {'stop':<14} {'steps':>5} {'tools':>5} "
        f"{'tokens':>9} {'cost':>9} {'time':>7}  error",
    ]
    for r in rows:
        mark = {True: "yes", False: "no", None: "–"}[r.solved]
        tokens = r.usage.input_tokens + r.usage.output_tokens
        lines.append(
            f"{r.id[:24]:<24} {mark:<6} {r.stop_reason:<14} {r.model_calls:>5} "
            f"{r.tool_calls:>5} {tokens:>9,} {_money(r.cost):>9} {r.duration:>6.1f}s  "
            f"{(r.error or '')[:60]}"
        )
    return "\n".join(lines) + "\n"


def _money(cost: float | None) -> str:
    return "–" if cost is None else f"${cost:.4f}"
