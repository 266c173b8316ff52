"""The `job_kill` tool: stop a background job and everything it started."""

from __future__ import annotations

from typing import Any

from auger.tools.base import ToolContext, tool
from auger.tools.jobs import find_job


async def job_kill(job_id: str, *, ctx: ToolContext) -> str:
    """Stop a background job: its whole process group gets SIGTERM, then SIGKILL after half a
    second. Stop the jobs you started once you no longer need them.

    Args:
        job_id: The job to stop, as bash returned it (e.g. "job1").
    """
    jobs, job = find_job(ctx, job_id)
    running = job.process.returncode is None
    status = await jobs.stop(job)
    return f"Stopped: {status}" if running else f"Already ended: {status}"


TOOL = tool(job_kill)


def extension(g: Any) -> None:
    """Registers `job_kill`."""
    g.tool(TOOL)
