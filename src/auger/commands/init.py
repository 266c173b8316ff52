"""`/init`: the model studies the project and writes (or improves) its AGENTS.md."""

from __future__ import annotations

from auger.engine.context import Context

PROMPT = """\
Study this project and write an AGENTS.md file at its root: the instructions a coding agent \
(or a new contributor) needs to work here well. Look before you write — the README, the build \
and package files, the CI configuration, the layout of the source and the tests, a few \
representative modules.

AGENTS.md should say, briefly and concretely:
- what the project is, in two or three sentences;
- how to set it up, build it, run it, and run the tests (a single test too), and how to lint \
or format, with the exact commands;
- the layout: where the main pieces live and how they depend on each other;
- the conventions the code follows (style, naming, error handling, test style) that are not \
obvious from one file;
- anything surprising: generated files, slow or flaky steps, things never to edit.

Keep it short (well under 200 lines); no generic advice, nothing you did not see in the project. \
{existing}When done, say in one or two sentences what you wrote."""

EXISTING = (
    "There is already an AGENTS.md: read it first, keep what is still true, fix what is not, "
    "and add what is missing rather than starting over. "
)


async def init(ctx: Context) -> None:
    """Have the model study the project and write AGENTS.md (`/init [extra instructions]`)."""
    existing = EXISTING if (ctx.cwd / "AGENTS.md").exists() else ""
    text = PROMPT.format(existing=existing)
    if ctx.args.strip():
        text += f"\n\nAlso: {ctx.args.strip()}"
    await ctx.prompt(text)
