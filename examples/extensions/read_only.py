"""Read-only mode: the model may look but not touch.

Shows the smallest useful guard — a `tool_call` handler whose string blocks the call — and a
system-prompt section (`g.prompt`) so the model knows before it tries.
"""

WRITERS = {"write", "edit", "bash"}


def extension(g):
    g.prompt("read_only", "This session is read-only: read and search, but change nothing.")
    g.on("tool_call", lambda e: "this session is read-only" if e.name in WRITERS else None)
