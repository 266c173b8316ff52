"""What the renderer shows of the agent's own bookkeeping: running sub-agents (live lines), the
todo list (a checklist above the input), plans, and the provider's web searches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from auger.hosts.terminal.checklist import Checklist
from auger.hosts.terminal.children import Children
from auger.hosts.terminal.sources import Sources


class AgentView:
    """Records of these kinds in; lines out through `note` (quiet) and `lines` (plain), and
    what ctrl-o expands through `fold`."""

    def __init__(
        self,
        note: Callable[[str], None],
        lines: Callable[[str], None],
        fold: Callable[[str, list[str]], None],
    ) -> None:
        self._note = note
        self._lines = lines
        self._fold = fold
        self.children = Children()
        self.checklist = Checklist()
        self.sources = Sources()

    def handlers(self) -> dict[str, Callable[[Any], None]]:
        """The record types this view draws, by type."""
        return {
            "subagent_start": self.children.start,
            "subagent_record": self.children.inner,
            "subagent_end": self._child_end,
            "todo": self._todo,
            "plan": self._plan,
            "web_search_call": lambda r: self._note(self.sources.searched(r)),
            "web_search_results": self._search_results,
            "citation": self.sources.citation,
        }

    def end_turn(self) -> None:
        """The turn is over: the sources go under its answer."""
        for line in self.sources.flush():
            self._note(line)

    def _child_end(self, record: Any) -> None:
        line, log = self.children.end(record)
        self._note(line + (" (ctrl-o)" if log else ""))
        if log:
            self._fold(record.agent_id, log)

    def _todo(self, record: Any) -> None:
        done = self.checklist.update(record)
        if done:
            self._note(done)

    def _plan(self, record: Any) -> None:
        if record.decision != "proposed":
            how = f" — mode {record.mode}" if record.mode else ""
            why = f": {record.feedback}" if record.feedback else ""
            self._note(f"◇ plan {record.decision}{how}{why}")
            return
        self._note("◇ plan")
        self._lines(record.plan)

    def _search_results(self, record: Any) -> None:
        failed = self.sources.results(record)
        if failed:
            self._note(failed)
