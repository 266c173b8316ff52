"""`auger acp`: an Agent Client Protocol agent on stdio, for editors (see `agent`)."""

from __future__ import annotations

import os
import stat
import sys
from importlib.util import find_spec


def _streamable(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


def main(args: list[str]) -> int:
    """`auger acp [options]`: serve one ACP client on stdin and stdout until it hangs up."""
    import asyncio

    from auger.hosts.launch import parse

    opts = parse("acp", args, "An Agent Client Protocol agent on stdio, for editors.")
    if find_spec("acp") is None:
        sys.stderr.write(
            "auger: auger acp needs the agent-client-protocol package: pip install 'auger[acp]'\n"
        )
        return 2
    if not (_streamable(0) and _streamable(1)):
        sys.stderr.write("auger: auger acp talks to an editor over pipes, not files\n")
        return 2
    from auger.hosts.acp.agent import serve

    asyncio.run(serve(opts))
    return 0
