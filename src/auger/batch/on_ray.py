"""The Ray engine: each task a Ray task on a cluster (`ray.init()` with no address starts a
local one). Needs `pip install 'auger[ray]'`; Ray is imported only here.

A task's `path` is packed on the driver and unpacked on the worker; `git` and `setup` run on
the worker. A worker that dies mid-task gets its task run once more by Ray (`max_retries=1`);
an actor counts the attempts, and only the run that returns is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import msgspec

from auger.batch.execute import DRAIN_TIMEOUT, Options, Outcome, execute, failed, sweep
from auger.batch.tasks import Task
from auger.batch.workdir import SetupError, pack

RETRIES = 1
STOP_GRACE = DRAIN_TIMEOUT + 5.0  # a cancelled task ends its turn, then removes its copy


class RayUnavailable(RuntimeError):
    """Ray is not installed, or its cluster cannot be reached."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'auger[ray]'") from None
    return ray


class _Attempts:
    """How many times each task has started, across workers (a Ray actor)."""

    def __init__(self) -> None:
        self.started: dict[str, int] = {}

    def start(self, task_id: str) -> int:
        self.started[task_id] = self.started.get(task_id, 0) + 1
        return self.started[task_id]


def _on_worker(task: Task, options: Options, packed: bytes | None, attempts: Any) -> Outcome:
    ray = _ray()
    attempt = ray.get(attempts.start.remote(task.id))
    return asyncio.run(execute(task, options, packed, attempt))


async def run_ray(
    tasks: Sequence[Task], options: Options, workers: int, address: str | None
) -> AsyncGenerator[Outcome, None]:
    """Yield each task's outcome as it finishes, at most `workers` tasks in flight. A local
    cluster this started is shut down at the end; closing the iterator cancels what runs."""
    ray = _ray()
    started = not ray.is_initialized()
    if started:  # in this thread: Ray installs its signal handlers only from the main one
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except Exception as exc:  # Ray raises ConnectionError, ValueError, RuntimeError…
            where = f"at {address}" if address else "locally"
            raise RayUnavailable(f"cannot start Ray {where}: {exc}") from None
    options = msgspec.structs.replace(options, tag=options.tag or secrets.token_hex(4))
    attempts = ray.remote(num_cpus=0)(_Attempts).remote()
    remote = ray.remote(max_retries=RETRIES, retry_exceptions=False)(_on_worker)
    queue = list(tasks)
    running: dict[asyncio.Future[Any], tuple[Task, Any]] = {}
    packs: dict[str, Any] = {}  # one upload per directory, however many tasks start from it

    def submit() -> Outcome | None:
        task = queue.pop(0)
        packed = None
        if task.path is not None:
            try:
                if task.path not in packs:
                    packs[task.path] = ray.put(pack(task.path))
            except (SetupError, OSError) as exc:
                return failed(task, "setup_failed", str(exc), 1)
            packed = packs[task.path]
        ref = remote.remote(task, options, packed, attempts)
        running[asyncio.wrap_future(ref.future())] = (task, ref)
        return None

    try:
        while queue or running:
            while queue and len(running) < workers:
                refused = submit()
                if refused is not None:
                    yield refused
            if not running:
                continue
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for future in done:
                task, _ = running.pop(future)
                try:
                    yield future.result()
                except ray.exceptions.RayError as exc:
                    yield failed(task, "error", _reason(exc), RETRIES + 1)
    finally:
        _stop(ray, [ref for _, ref in running.values()])
        for future in running:
            future.cancel()
        with contextlib.suppress(Exception):  # a cluster that went away has nothing to kill
            ray.kill(attempts)
        if started:
            ray.shutdown()
        sweep(options)  # a worker killed by force left its copy; on this machine it goes too


def _stop(ray: Any, refs: list[Any]) -> None:
    """Cancel running tasks: first as a KeyboardInterrupt, so each ends its session and
    removes its working copy, then by killing the workers of those that did not stop in time."""
    if not refs:
        return
    for ref in refs:
        ray.cancel(ref)
    _, stuck = ray.wait(refs, num_returns=len(refs), timeout=STOP_GRACE)
    for ref in stuck:
        ray.cancel(ref, force=True)


def _reason(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
    return f"ray: {type(exc).__name__}: {first[0]}"
