"""An MCP stdio server whose tools arrive late: run as `python late_mcp.py DIR`.

It waits (up to 30 s) for `DIR/go` before it answers anything, and touches `DIR/listed` once it
has listed its one tool, `lookup`, so a test can hold a tool call open until the tools arrive.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer


class Late(MCPServer):
    """Says when its tools have been listed."""

    def __init__(self, where: Path) -> None:
        super().__init__("late")
        self.where = where

    async def list_tools(self) -> Any:
        """The tools, and a `listed` file beside `go`."""
        tools = await super().list_tools()
        (self.where / "listed").touch()
        return tools


def main() -> None:
    """Wait for `go`, then serve on stdio."""
    where = Path(sys.argv[1])
    deadline = time.monotonic() + 30
    while not (where / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    server = Late(where)

    @server.tool()
    def lookup(key: str) -> str:
        """The value stored under `key`."""
        return f"the value of {key} is 42"

    server.run("stdio")


if __name__ == "__main__":
    main()
