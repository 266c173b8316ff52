"""The bundled `subagents` extension: the `task` tool, which runs child agents (SPEC §8).

One call may start several children; they run concurrently inside that call, and its result
is each child's final answer. Setting: `subagents.max_depth` (default 2: the main agent's
children may start children of their own, theirs may not).
"""

from __future__ import annotations

from typing import Any

from auger.engine.children import ChildSpec, depth_of, run_children
from auger.engine.context import Context
from auger.extensions import claude_project
from auger.extensions.subagents.definitions import Definition, discover
from auger.tools.base import Tool, ToolContext, ToolError, ToolResponse

NAME = "task"
PLAN_TOOL = "propose_plan"
MAX_DEPTH = 2
MAX_TASKS = 8


def parameters() -> dict[str, Any]:
    """The `task` tool's schema: a list of {agent, prompt}."""
    # lean: every request carries it; the tool checks each task and says what is missing
    item = {"properties": {"agent": {"type": "string"}, "prompt": {"type": "string"}}}
    return {
        "type": "object",
        "properties": {"tasks": {"type": "array", "items": item}},
        "required": ["tasks"],
    }


def description(agents: dict[str, Definition]) -> str:
    """What the model is told: what a task is, and the agents there are."""
    listed = "; ".join(
        f"{d.name} ({d.description})" if d.description else d.name for d in agents.values()
    )
    return f"Run sub-agents at once in fresh contexts; returns their answers. Agents: {listed}."


def _specs(args: dict[str, Any], agents: dict[str, Definition]) -> list[ChildSpec]:
    tasks = args.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise ToolError("validation_error", "task: tasks must be a non-empty list")
    if len(tasks) > MAX_TASKS:
        raise ToolError("validation_error", f"task: at most {MAX_TASKS} tasks in one call")
    specs = []
    for item in tasks:
        prompt = item.get("prompt") if isinstance(item, dict) else None
        if not isinstance(prompt, str) or not prompt.strip():
            raise ToolError("validation_error", "task: every task needs a prompt")
        name = item.get("agent") or "general"
        found = agents.get(name) if isinstance(name, str) else None
        if found is None:
            names = ", ".join(agents)
            raise ToolError("validation_error", f"task: unknown agent {name!r} (agents: {names})")
        specs.append(ChildSpec(found.name, found.prompt, prompt, found.tools, found.model))
    return specs


def answer(results: list[Any]) -> str:
    """The call's result: each child's final answer, headed by who gave it."""
    blocks = []
    for r in results:
        head = f"[{r.agent_id}]" + ("" if r.stop_reason == "completed" else f" ({r.stop_reason})")
        blocks.append(f"{head}\n{r.text.strip() or '(no answer)'}")
    return "\n\n".join(blocks)


def extension(g: Any) -> None:
    """Register `task` with the agents found for this project."""
    trusted = claude_project.trusted(g.home, g.cwd)
    agents, problems = discover(g.cwd, g.home, g.user_home, trusted)
    for problem in problems:
        g.notify(problem, "warning")
    max_depth = g.setting("max_depth", MAX_DEPTH)
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1:
        g.notify(f"subagents.max_depth must be a whole number from 1; using {MAX_DEPTH}", "warning")
        max_depth = MAX_DEPTH

    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolResponse:
        parent = ctx.agent
        if not isinstance(parent, Context):  # children need the whole engine context
            raise ToolError("blocked", "task: sub-agents run only inside an agent's turn")
        depth = depth_of(parent)
        if depth >= max_depth:
            raise ToolError("blocked", f"task: sub-agents nest at most {max_depth} deep")
        specs = _specs(args, agents)
        # the main agent plans; a child never nests past the limit
        withheld = {PLAN_TOOL} | ({NAME} if depth + 1 >= max_depth else set())
        results = await run_children(parent, ctx.call_id, specs, frozenset(withheld))
        failed = all(r.stop_reason != "completed" for r in results)
        return ToolResponse(answer(results), "subagent_failed" if failed else None)

    g.tool(Tool(NAME, description(agents), parameters(), run))
