"""Child engines in-process (SPEC §8): extensions see a child's events with the child's
identity in `ctx`, under the same registry; a child's usage is the parent's too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.engine.context import Agent
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.llm.usage import Usage
from auger.records import SubagentEnd, SubagentRecord, TurnEnd
from auger.tools.base import tool
from support.runtime import collect, make_runtime


@tool
def probe() -> str:
    """Look."""
    return "seen"


def bundle(seen: list[tuple[str, str, Any]]) -> Any:
    from auger.extensions.subagents import extension as subagents

    def extension(g: Any) -> None:
        subagents(g)
        g.tool(probe)
        g.on("tool_call", lambda e, ctx: seen.append(("tool_call", e.name, ctx.agent)))
        g.on("turn_end", lambda e, ctx: seen.append(("turn_end", e.text, ctx.agent)))

    return extension


async def test_extensions_see_a_childs_events_with_its_identity(tmp_path: Path) -> None:
    seen: list[tuple[str, str, Any]] = []
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("task", {"tasks": [{"prompt": "probe it"}]}, call_id="c1"), usage=Usage(13, 4)
            ),
            Reply.of(Call("probe", {}), usage=Usage(7, 3)),
            Reply.of("child done", usage=Usage(5, 1)),
            Reply.of("parent done", usage=Usage(11, 2)),
        ]
    )
    runtime = make_runtime(tmp_path, provider, extensions=[bundle(seen)])
    records = await collect(runtime, "delegate")
    await runtime.close()
    [end] = [r for r in records if isinstance(r, SubagentEnd)]
    child = Agent(end.agent_id, "general", 1, "c1")
    assert seen == [
        ("tool_call", "task", None),
        ("tool_call", "probe", child),
        ("turn_end", "child done", child),
        ("turn_end", "parent done", None),
    ]
    assert end.usage == Usage(12, 4)
    final = records[-1]
    assert isinstance(final, TurnEnd) and final.text == "parent done"
    assert final.usage == Usage(13 + 7 + 5 + 11, 4 + 3 + 1 + 2)
    wrapped = [r.record for r in records if isinstance(r, SubagentRecord)]
    assert isinstance(wrapped[-1], TurnEnd) and wrapped[-1].text == "child done"
