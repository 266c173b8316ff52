"""Plan mode: read-only is the planning mode (SPEC §6). While it is the mode, the main agent
has `propose_plan`: the user approves the plan (choosing the mode to carry it out in; the turn
goes on), edits it, or rejects it with feedback. A host that cannot ask (`auger -p`) ends the
turn with the plan as its final text."""

from __future__ import annotations

from typing import Any

from auger.records import Plan
from auger.tools.base import Tool, ToolContext, ToolError

NAME = "propose_plan"
PLANNING_MODE = "read-only"
APPROVALS = {
    "Approve, accept edits": "accept-edits",
    "Approve, ask before each change": "ask",
    "Approve, run everything (auto)": "auto",
}
EDIT = "Edit the plan"
REJECT = "Reject, with feedback"
DESCRIPTION = (
    "Plan mode: you may only read and search. Present your plan for the user's approval; "
    "once approved, carry it out."
)
PARAMETERS = {
    "type": "object",
    "properties": {"plan": {"type": "string", "description": "Markdown."}},
    "required": ["plan"],
}


def register(g: Any, permissions: Any) -> None:
    """Offer `propose_plan` to the main agent at each turn that starts in the planning mode."""

    async def run(args: dict[str, Any], ctx: ToolContext) -> str:
        plan = args.get("plan")
        if not isinstance(plan, str) or not plan.strip():
            raise ToolError("validation_error", f"{NAME}: the plan is empty")
        agent = ctx.agent
        if agent is None:
            raise ToolError("blocked", f"{NAME} runs only inside an agent's turn")
        plan = plan.strip()
        await agent.publish(Plan(plan, "proposed"))
        if "ask" not in agent.capabilities:
            agent.end_turn(plan)
            return "The plan was presented to the user; the turn ends here."
        return await decide(agent, permissions, plan)

    tool = Tool(NAME, DESCRIPTION, PARAMETERS, run)

    def offer(event: Any, ctx: Any) -> None:
        if ctx.agent is not None:  # a sub-agent's turn: the main agent plans
            return
        if permissions.current_mode(ctx.settings) == PLANNING_MODE:
            g.tool(tool)
        else:
            g.remove_tool(NAME)

    g.on("turn_start", offer)  # before the turn's tools are read


async def decide(agent: Any, permissions: Any, plan: str) -> str:
    """Ask the user about `plan` until they approve or reject it; what the model is told."""
    while True:
        answer = await agent.ask("Approve this plan?", [*APPROVALS, EDIT, REJECT])
        if answer in APPROVALS:
            mode = APPROVALS[answer]
            permissions.mode = mode
            await agent.publish(Plan(plan, "approved", mode))
            return (
                f"The user approved the plan; the permission mode is now {mode}. "
                f"Carry it out now:\n\n{plan}"
            )
        if answer == EDIT:
            edited = await agent.ask("Your version of the plan:")
            if edited and edited.strip():
                plan = edited.strip()
                await agent.publish(Plan(plan, "proposed"))
            continue
        feedback = await agent.ask("What should change?") if answer == REJECT else None
        feedback = feedback.strip() if feedback and feedback.strip() else None
        await agent.publish(Plan(plan, "rejected", feedback=feedback))
        said = f": {feedback}" if feedback else ""
        return f"The user rejected the plan{said}. Keep planning (read-only); propose again."
