"""The `job_output` tool: a background job's status and the output it printed since last time."""

from __future__ import annotations

from typing import Any

from auger.tools.base import ToolContext, tool
from auger.tools.jobs import find_job, session_jobs


async def job_output(job_id: str | None = None, *, ctx: ToolContext) -> str:
    """Show a background job's status (running, or how it exited) and the output it printed
    since you last looked; without job_id, list every job and its status. The whole output stays
    in the job's file, which read can open. Check on a job when you need its result rather than
    polling it in a loop.

    Args:
        job_id: The job to look at, as bash returned it (e.g. "job1").
    """
    if job_id is None:
        return session_jobs(ctx).summary()
    jobs, job = find_job(ctx, job_id)
    return jobs.output(job)


TOOL = tool(job_output)


def extension(g: Any) -> None:
    """Registers `job_output`."""
    g.tool(TOOL)
