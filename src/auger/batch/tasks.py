"""The task schema of `auger batch` and the JSONL reader that checks it line by line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

PermissionMode = Literal["ask", "accept-edits", "read-only", "auto"]


class Task(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One unit of a batch: a prompt run in a fresh copy of a working directory.

    The directory starts as a copy of `path`, a clone of `git` at `ref`, or empty; `setup`
    (a shell command) then runs in it. `check` (a shell command run there afterwards) exits 0
    when the task is solved. `max_steps`, `timeout` (seconds) and `max_cost` (USD) bound the
    agent's turn.
    """

    id: str
    prompt: str
    path: str | None = None
    git: str | None = None
    ref: str | None = None
    setup: str | None = None
    check: str | None = None
    model: str | None = None
    permission_mode: PermissionMode | None = None
    max_steps: int | None = None
    timeout: float | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        if not self.id.strip() or "/" in self.id or self.id in (".", ".."):
            raise ValueError("id must be a non-empty name without '/'")
        if not self.prompt.strip():
            raise ValueError("prompt must not be empty")
        if self.path is not None and self.git is not None:
            raise ValueError("give path or git, not both")
        if self.ref is not None and self.git is None:
            raise ValueError("ref needs git")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        for name in ("timeout", "max_cost"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, as JSON-ready values."""
        return {k: v for k, v in msgspec.structs.asdict(self).items() if v is not None}


class TaskError(msgspec.Struct, frozen=True):
    """A task that could not be read: where it was and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


_decoder = msgspec.json.Decoder(Task)


def task_from_dict(data: Mapping[str, Any]) -> Task:
    """A Task from a dict, checked like a JSONL line (raises `ValueError`)."""
    try:
        return msgspec.convert(dict(data), Task)
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc)) from None


def parse_tasks(
    lines: Iterable[str], base: Path | None = None
) -> tuple[list[Task], list[TaskError]]:
    """The tasks of a JSONL text and the problems of the lines that were skipped.

    Blank lines and lines starting with `#` are ignored. A relative `path` is resolved against
    `base` (the tasks file's directory). A repeated id is an error on its later line.
    """
    tasks: list[Task] = []
    errors: list[TaskError] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            task = _decoder.decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
            errors.append(TaskError(number, str(exc)))
            continue
        if task.id in seen:
            errors.append(TaskError(number, f"duplicate id {task.id!r}"))
            continue
        seen.add(task.id)
        if task.path is not None and base is not None and not Path(task.path).is_absolute():
            task = msgspec.structs.replace(task, path=str((base / task.path).resolve()))
        tasks.append(task)
    return tasks, errors


def load_tasks(path: str | Path) -> tuple[list[Task], list[TaskError]]:
    """The tasks of a JSONL file (see `parse_tasks`); an unreadable file raises `OSError`."""
    file = Path(path)
    with file.open(encoding="utf-8", errors="replace") as lines:
        return parse_tasks(lines, file.resolve().parent)
