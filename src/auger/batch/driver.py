"""A batch from the caller's side: which tasks still need a run, the engine that runs them,
and the results file and sessions they leave."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

from auger.batch.execute import Options, Outcome
from auger.batch.results import Result, ResultsFile
from auger.batch.tasks import PermissionMode, Task, task_from_dict

Engine = Literal["local", "ray"]


def as_tasks(tasks: Iterable[Task | Mapping[str, Any]]) -> list[Task]:
    """Tasks from Task values or dicts; a bad one or a repeated id raises `ValueError`."""
    out: list[Task] = []
    seen: set[str] = set()
    for index, item in enumerate(tasks):
        try:
            task = item if isinstance(item, Task) else task_from_dict(item)
        except ValueError as exc:
            raise ValueError(f"task {index}: {exc}") from None
        if task.id in seen:
            raise ValueError(f"task {index}: duplicate id {task.id!r}")
        seen.add(task.id)
        out.append(task)
    return out


async def stream(
    tasks: Iterable[Task | Mapping[str, Any]],
    *,
    workers: int = 4,
    engine: Engine = "local",
    address: str | None = None,
    results: str | Path | None = None,
    model: str | None = None,
    permission_mode: PermissionMode | None = None,
    settings: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    home: str | Path | None = None,
    provider: Callable[[Task], Any] | None = None,
    workdirs: str | Path | None = None,
    keep: bool = False,
) -> AsyncGenerator[Result, None]:
    """Run the tasks and yield each Result as it finishes.

    With `results` (a JSONL path) every result is appended as it finishes, tasks already in
    the file are skipped (and not yielded), sessions go to `<results stem>.sessions/` beside
    it, and the file is rewritten in task order at the end. Without it, sessions go to a new
    temporary directory. `engine="ray"` runs the tasks on Ray (`address`: a cluster to join;
    `None` starts a local one). Stopping early (closing the iterator, cancelling) keeps what
    finished.
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    todo = as_tasks(tasks)
    file = ResultsFile(results if results is not None else _scratch() / "results.jsonl")
    pending = [t for t in todo if t.id not in file.done]
    options = Options(
        model=model,
        permission_mode=permission_mode,
        settings=settings,
        env=env,
        home=None if home is None else str(home),
        provider=provider,
        root=None if workdirs is None else str(workdirs),
        keep=keep,
    )
    if workdirs is not None:
        Path(workdirs).mkdir(parents=True, exist_ok=True)
    outcomes = _engine(engine, pending, options, workers, address)
    try:
        async for outcome in outcomes:
            result = _keep(file, outcome, relative=results is not None)
            if results is not None:
                file.append(result)
            yield result
    finally:
        await outcomes.aclose()
        if results is not None and file.done:
            file.finish([t.id for t in todo])


def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="auger-sessions-"))


def _engine(
    engine: Engine, tasks: list[Task], options: Options, workers: int, address: str | None
) -> AsyncGenerator[Outcome, None]:
    if engine == "local":
        from auger.batch.local import run_local

        return run_local(tasks, options, workers)
    if engine == "ray":
        from auger.batch.on_ray import run_ray

        return run_ray(tasks, options, workers, address)
    raise ValueError(f"unknown engine {engine!r} (local or ray)")


def _keep(file: ResultsFile, outcome: Outcome, *, relative: bool) -> Result:
    """Write the session beside the results and point the result at it."""
    result = outcome.result
    if outcome.session is None:
        return result
    path = file.session_path(result.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(outcome.session)
    shown = file.relative(path) if relative else str(path)
    return msgspec.structs.replace(result, session=shown)


def run(tasks: Iterable[Task | Mapping[str, Any]], **options: Any) -> list[Result]:
    """Run the tasks to the end and return their results in the order they finished (see
    `stream` for the options). Call it where no event loop is running."""

    async def collect() -> list[Result]:
        return [result async for result in stream(tasks, **options)]

    return asyncio.run(collect())
