"""A custom command: `/review [what]` asks the model for a code review.

Shows `g.command`: the handler gets `ctx.args` (what followed the command), says something to
the user with `ctx.say`, then runs a turn with `ctx.prompt`.
"""


async def review(ctx):
    """Review what was named, or the uncommitted changes."""
    target = ctx.args or "the uncommitted changes (run `git diff`)"
    await ctx.say(f"Reviewing {target}…")
    await ctx.prompt(
        f"Review {target}. List bugs first, then risky code, then style; "
        "quote file and line for each point. Change nothing."
    )


def extension(g):
    g.command("review", review, "ask the model for a code review: /review [what]")
