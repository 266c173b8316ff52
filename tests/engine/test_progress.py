"""`ctx.progress`: what an extension (or the engine's own slow work) shows while it runs —
the host's spinner when it has the `progress` capability, nothing otherwise; each start is
matched by an end, also when the work fails or is cancelled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from auger.llm.scripted import ScriptedProvider
from support.hosts import Watching
from support.runtime import make_runtime


async def index(rt: Any) -> list[Any]:
    return [r async for r in rt.run_command("index")]


def indexing(fail: bool = False, hang: asyncio.Event | None = None) -> Any:
    def extension(g: Any) -> None:
        async def index(ctx: Any) -> None:
            async with ctx.progress("indexing the repository"):
                if hang is not None:
                    hang.set()
                    await asyncio.Event().wait()
                if fail:
                    raise RuntimeError("disk full")
            await ctx.say("indexed")

        g.command("index", index, "index the repository")

    return extension


async def test_the_host_shows_the_label_while_the_work_runs(tmp_path: Path) -> None:
    host = Watching()
    rt = make_runtime(tmp_path, ScriptedProvider([]), host=host, extensions=[indexing()])
    records = await index(rt)
    assert host.shown == [
        ("start", "indexing the repository"),
        ("end", "indexing the repository", None),
    ]
    assert any(getattr(r, "text", "") == "indexed" for r in records)
    await rt.close()


async def test_work_that_fails_still_ends_its_progress(tmp_path: Path) -> None:
    host = Watching()
    rt = make_runtime(tmp_path, ScriptedProvider([]), host=host, extensions=[indexing(True)])
    await index(rt)
    assert host.shown[-1] == ("end", "indexing the repository", "RuntimeError")
    assert host.open() == []
    await rt.close()


async def test_cancelled_work_ends_its_progress(tmp_path: Path) -> None:
    host, started = Watching(), asyncio.Event()
    rt = make_runtime(
        tmp_path, ScriptedProvider([]), host=host, extensions=[indexing(hang=started)]
    )
    running = asyncio.ensure_future(index(rt))
    await asyncio.wait_for(started.wait(), 10)
    assert host.open() == ["indexing the repository"]
    rt.cancel()
    await asyncio.wait_for(running, 10)
    assert host.shown[-1] == ("end", "indexing the repository", "CancelledError")
    await rt.close()


async def test_a_host_without_the_capability_is_never_asked(tmp_path: Path) -> None:
    host = Watching(capabilities=())  # headless, ACP and RPC: no spinner to show
    rt = make_runtime(tmp_path, ScriptedProvider([]), host=host, extensions=[indexing()])
    records = await index(rt)
    assert host.shown == []
    assert any(getattr(r, "text", "") == "indexed" for r in records)
    await rt.close()


def test_headless_acp_and_rpc_show_no_progress() -> None:
    """`auger -p` has no spinner (its notices already go to stderr), and neither ACP's
    `session/update` kinds nor auger's RPC records have a progress message: none of them
    advertises the capability, so `ctx.progress` is a no-op there (the test above)."""
    from auger.hosts.acp.host import AcpHost
    from auger.hosts.headless import HeadlessHost
    from auger.hosts.rpc import RpcHost
    from auger.hosts.terminal.host import TerminalHost

    assert "progress" in TerminalHost.capabilities
    for host in (HeadlessHost, AcpHost, RpcHost):
        assert "progress" not in host.capabilities
