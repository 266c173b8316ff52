"""Running sub-agents in the terminal: one live line each (agent, current tool, elapsed), and
a finished line when each ends, which expands to what the child did."""

from __future__ import annotations

from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.text import Theme
from auger.llm.usage import Usage
from auger.records import (
    AfterToolCall,
    BeforeToolCall,
    SubagentEnd,
    SubagentRecord,
    SubagentStart,
    TurnEnd,
)
from auger.tools.base import ToolResponse


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def live_text(renderer: Renderer) -> list[str]:
    return "".join(text for _, text in renderer.live()).split("\n")


def test_each_running_child_is_one_live_line_until_it_ends() -> None:
    renderer = Renderer(Theme(color=False), cells=80)
    clock = Clock()
    renderer.agent.children.clock = clock
    renderer.feed(SubagentStart("explore-1", "explore", "call_1", "look", 1))
    renderer.feed(SubagentStart("general-2", "general", "call_1", "do", 1))
    clock.now += 3
    renderer.feed(SubagentRecord("explore-1", BeforeToolCall("c", "grep", {"pattern": "x"}, 0.0)))
    assert renderer.has_live()
    assert live_text(renderer) == ["◆ explore-1 · grep · 3s", "◆ general-2 · thinking · 3s"]
    result = ToolResponse("found")
    renderer.feed(SubagentRecord("explore-1", AfterToolCall("c", "grep", {}, result, 0.0, 0.1)))
    clock.now += 1.5
    renderer.feed(SubagentRecord("explore-1", TurnEnd("completed", Usage(10, 2), "found it")))
    renderer.feed(SubagentEnd("explore-1", "completed", Usage(10, 2)))
    assert live_text(renderer) == ["◆ general-2 · thinking · 4s"]
    assert "✓ explore-1 completed in 4.5s, 1 tool call (ctrl-o)" in renderer.take()
    assert renderer.expand()
    assert "── explore-1\n⚙ grep  ⎿ found\n\nfound it\n" in renderer.take()
    renderer.feed(SubagentEnd("general-2", "cancelled", Usage(10, 2)))
    assert not renderer.has_live()
    assert "✗ general-2 cancelled in 4.5s, 0 tool calls" in renderer.take()
