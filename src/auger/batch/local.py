"""The local engine: tasks as asyncio tasks in this process, at most `workers` at a time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

from auger.batch.execute import Options, Outcome, execute
from auger.batch.tasks import Task


async def run_local(
    tasks: Sequence[Task], options: Options, workers: int
) -> AsyncGenerator[Outcome, None]:
    """Yield each task's outcome as it finishes. Closing the iterator (or cancelling its
    consumer) cancels the tasks still running; their outcomes are never yielded."""
    slots = asyncio.Semaphore(workers)

    async def one(task: Task) -> Outcome:
        async with slots:
            return await execute(task, options)

    running = [asyncio.ensure_future(one(task)) for task in tasks]
    try:
        for finished in asyncio.as_completed(running):
            yield await finished
    finally:
        for future in running:
            future.cancel()
        await asyncio.gather(*running, return_exceptions=True)
