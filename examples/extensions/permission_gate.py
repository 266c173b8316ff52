"""Permission gate: ask before a risky shell command runs.

Shows an async `tool_call` handler taking `(event, ctx)`: it asks the host with
`await ctx.confirm(…)`, and a returned string blocks the call (the model is told why). A host
that cannot ask (`auger -p`) declines, so the command stays blocked.
"""

import re

RISKY = re.compile(r"\brm\s+-\w*[rf]|\bsudo\b|\bgit\s+push\b.*(--force|-f\b)|\bmkfs|\bdd\s+if=")


async def gate(event, ctx):
    """Let safe commands through; ask about risky ones."""
    command = event.input.get("command", "")
    if event.name != "bash" or not RISKY.search(command):
        return None
    if await ctx.confirm(f"Allow this command?\n  {command}"):
        return None
    return f"the user did not allow `{command}`; find another way or ask them"


def extension(g):
    g.on("tool_call", gate)
