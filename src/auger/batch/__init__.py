"""Many agents at once: `run(tasks)` / `stream(tasks)`, locally or on Ray (see `driver`)."""

from __future__ import annotations

from auger.batch.driver import Engine, run, stream
from auger.batch.on_ray import RayUnavailable
from auger.batch.results import Result, read_results, summary
from auger.batch.tasks import Task, TaskError, load_tasks, parse_tasks

__all__ = [
    "Engine",
    "RayUnavailable",
    "Result",
    "Task",
    "TaskError",
    "load_tasks",
    "parse_tasks",
    "read_results",
    "run",
    "stream",
    "summary",
]
