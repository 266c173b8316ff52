"""A custom tool: count the lines, words and characters of a file.

Shows `g.tool` used as a decorator: the schema the model sees comes from the type hints, the
description and argument help from the docstring, and a `ctx` parameter gets the session's
`ToolContext`. A raised `ToolError` becomes an error the model reads.
"""

from auger import ToolError


def extension(g):
    @g.tool
    def word_count(path: str, ctx) -> str:
        """Count the lines, words and characters of a text file.

        Args:
            path: the file, relative to the project.
        """
        try:
            text = ctx.resolve(path).read_text()
        except OSError as exc:
            raise ToolError("not_found", f"cannot read {path}: {exc.strerror}") from None
        return f"{len(text.splitlines())} lines, {len(text.split())} words, {len(text)} chars"
