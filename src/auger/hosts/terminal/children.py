"""Running sub-agents as the terminal shows them (SPEC §8): one live line each — agent, the
tool it is running, time so far — and one finished line when it ends, which expands (ctrl-o)
to what the child did: its tool calls and its answer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec


class Running(msgspec.Struct):
    """One child on screen: who it is, since when, its current tool, how many it ran."""

    name: str
    started: float
    tool: str = ""
    calls: int = 0
    log: list[str] = msgspec.field(default_factory=list)


class Children:
    """Follows `subagent_*` records: `live()` lines while children run, `finished()` lines."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.running: dict[str, Running] = {}

    def start(self, record: Any) -> None:
        """A child started."""
        self.running[record.agent_id] = Running(record.name, self.clock())

    def inner(self, record: Any) -> None:
        """A record of a child: its tool calls change its line."""
        child = self.running.get(record.agent_id)
        inner = record.record
        if child is None:
            return
        if inner.type == "before_tool_call":
            child.tool = inner.tool
        elif inner.type == "after_tool_call":
            child.tool = ""
            child.calls += 1
            result = inner.result
            first = next((line for line in result.content.split("\n") if line.strip()), "")
            mark = "✗" if result.is_error else "⎿"
            child.log.append(f"⚙ {inner.tool}  {mark} {first.strip()[:100]}")
        elif inner.type == "turn_end" and inner.text:
            child.log += ["", *inner.text.strip().split("\n")]

    def end(self, record: Any) -> tuple[str, list[str]]:
        """A child ended: its finished line, and what it did (its calls, its answer)."""
        child = self.running.pop(record.agent_id, None)
        elapsed = self.clock() - child.started if child is not None else 0.0
        calls = child.calls if child is not None else 0
        mark = "✓" if record.stop_reason == "completed" else "✗"
        tools = f", {calls} tool call{'s' if calls != 1 else ''}"
        line = f"{mark} {record.agent_id} {record.stop_reason} in {elapsed:.1f}s{tools}"
        return line, child.log if child is not None else []

    def live(self) -> list[str]:
        """One line per running child."""
        now = self.clock()
        return [
            f"◆ {agent_id} · {child.tool or 'thinking'} · {now - child.started:.0f}s"
            for agent_id, child in self.running.items()
        ]
