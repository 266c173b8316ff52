"""One task, start to finish: a fresh directory, one agent turn within its limits, the check.

The same function runs in the batch's own process and on a Ray worker; it hands back the
Result and the session file's bytes, and leaves nothing behind (unless asked to keep the
working directory).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from auger.batch.results import Result
from auger.batch.tasks import PermissionMode, Task
from auger.batch.workdir import SetupError, check, describe_failure, materialise
from auger.llm.usage import Usage
from auger.records import AfterToolCall, Record, TokenUsageDone, TurnEnd

if TYPE_CHECKING:
    from auger.loader import Options as BuildOptions
    from auger.runtime import Runtime

DRAIN_TIMEOUT = 10.0


class Options(msgspec.Struct, frozen=True):
    """What every task of a batch shares.

    `model` and `permission_mode` are the defaults of tasks that name none (in a batch nobody
    answers a permission question, so an `ask` is a deny); `settings`, `env` and `home` go to
    each Runtime as-is (`None`: the Runtime's defaults, read where the task runs); `provider`,
    when given, builds each task's provider (the Python API's way to script a batch); `root`
    is where working directories are made; `keep` leaves them there; `tag` goes into their
    names, so `sweep` finds what a killed worker could not remove.
    """

    model: str | None = None
    permission_mode: PermissionMode | None = None
    settings: Mapping[str, Any] | None = None
    env: Mapping[str, str] | None = None
    home: str | None = None
    provider: Callable[[Task], Any] | None = None
    root: str | None = None
    keep: bool = False
    tag: str = ""


class Outcome(msgspec.Struct, frozen=True):
    """A finished task: its result (without a session path yet) and its session's bytes."""

    result: Result
    session: bytes | None


class _Turn(msgspec.Struct):
    stop_reason: str = "error"
    usage: Usage = msgspec.field(default_factory=Usage)
    model_calls: int = 0
    tool_calls: int = 0
    error: str | None = None
    session: bytes | None = None


async def execute(
    task: Task, options: Options, packed: bytes | None = None, attempt: int = 1
) -> Outcome:
    """Run `task` in a fresh directory (`packed`: its `path`, already packed) and check it."""
    started = time.monotonic()
    try:
        return await _execute(task, options, packed, attempt, started)
    except Exception as exc:  # one broken task must never end the batch
        return failed(task, "error", f"{type(exc).__name__}: {exc}", attempt, started)


def failed(
    task: Task, stop: str, error: str, attempt: int, started: float | None = None
) -> Outcome:
    """The outcome of a task that ended before or outside its agent's turn."""
    return _outcome(task, _Turn(stop_reason=stop, error=error), None, started, attempt)


async def _execute(
    task: Task, options: Options, packed: bytes | None, attempt: int, started: float
) -> Outcome:
    root = Path(tempfile.mkdtemp(prefix=_prefix(options), dir=options.root))
    workdir = root / task.id
    workdir.mkdir()
    try:
        try:
            await materialise(task, workdir, options.env, packed)
        except (SetupError, OSError) as exc:
            return failed(task, "setup_failed", str(exc), attempt, started)
        turn = await _agent(task, workdir, options)
        verdict = await check(task, workdir, options.env)
        solved = None if verdict is None else verdict.ok
        if verdict is not None and verdict.status is None:
            turn.error = turn.error or describe_failure(verdict)
        return _outcome(task, turn, solved, started, attempt)
    finally:
        if not options.keep:
            await asyncio.to_thread(shutil.rmtree, root, True)


def _prefix(options: Options) -> str:
    return f"auger-batch-{options.tag}-" if options.tag else "auger-batch-"


def sweep(options: Options) -> None:
    """Remove the working directories of `options.tag`'s tasks left on this machine."""
    if options.keep or not options.tag:
        return
    root = Path(options.root or tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for left in root.glob(_prefix(options) + "*"):
            shutil.rmtree(left, ignore_errors=True)


def _outcome(
    task: Task, turn: _Turn, solved: bool | None, started: float | None, attempt: int
) -> Outcome:
    result = Result(
        id=task.id,
        stop_reason=turn.stop_reason,  # type: ignore[arg-type]
        solved=solved,
        usage=turn.usage,
        cost=turn.usage.cost,
        duration=0.0 if started is None else round(time.monotonic() - started, 3),
        model_calls=turn.model_calls,
        tool_calls=turn.tool_calls,
        session=None,
        error=turn.error,
        attempts=attempt,
    )
    return Outcome(result, turn.session)


async def _agent(task: Task, workdir: Path, options: Options) -> _Turn:
    from auger.config.errors import ConfigError
    from auger.loader import build

    turn = _Turn()
    try:
        runtime = await build(
            options_for(task, options, workdir),
            provider=None if options.provider is None else options.provider(task),
        )
    except ConfigError as exc:  # no model, a missing key…: this task's error, not the batch's
        turn.error = f"config: {exc}"
        return turn
    try:
        await _drive(runtime, task, turn)
    finally:
        await runtime.close()
        turn.session = _take_session(runtime)
    return turn


async def _drive(runtime: Runtime, task: Task, turn: _Turn) -> None:
    """Stream one prompt into `turn`, cancelling it when a limit is crossed."""
    halted: list[str] = []
    spent = 0.0

    def halt(reason: str) -> None:
        if not halted:
            halted.append(reason)
            runtime.cancel()

    loop = asyncio.get_running_loop()
    timer = loop.call_later(task.timeout, halt, "time_limit") if task.timeout else None
    records = runtime.prompt(task.prompt)
    try:
        async for record in records:
            if isinstance(record, TokenUsageDone):
                turn.model_calls += 1
                spent += record.usage.cost or 0.0
                if task.max_cost is not None and spent > task.max_cost:
                    halt("cost_limit")
            elif isinstance(record, AfterToolCall):
                turn.tool_calls += 1
            elif isinstance(record, TurnEnd):
                turn.stop_reason = halted[0] if halted else record.stop_reason
                turn.usage = record.usage
                if record.error and not halted:
                    turn.error = f"{record.error.get('kind')}: {record.error.get('message')}"
    except asyncio.CancelledError:
        # the batch is stopping: end the turn, so its session is whole, then go
        runtime.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_drain(records), DRAIN_TIMEOUT)
        raise
    finally:
        if timer is not None:
            timer.cancel()


async def _drain(records: AsyncIterator[Record]) -> None:
    async for _ in records:
        pass


def options_for(task: Task, options: Options, workdir: Path) -> BuildOptions:
    """How one task's Runtime is built: in `workdir`, with the batch's settings (the files
    when none are given) and the task's model, limits and permission mode over them; no
    extension is discovered, so every task starts from the same ones."""
    from auger.loader import Options as BuildOptions

    return BuildOptions(
        model=task.model or options.model,
        cwd=str(workdir),
        home=options.home,
        env=options.env,
        settings=options.settings,
        max_steps=task.max_steps or 100,
        permission_mode=task.permission_mode or options.permission_mode,
        discover=False,
    )


def _take_session(runtime: Runtime) -> bytes | None:
    """The session file's bytes, removed from the Runtime's home (the batch keeps its own)."""
    path = runtime.transcript_path
    if path is None or not path.exists():
        return None
    data = path.read_bytes()
    path.unlink()
    with contextlib.suppress(OSError):  # other sessions live there
        path.parent.rmdir()
    return data
