"""The renderer shows a plan in plan mode, then how the user decided."""

from __future__ import annotations

from auger.hosts.terminal.render import Renderer
from auger.hosts.terminal.text import Theme
from auger.records import Plan


def test_a_plan_is_shown_then_how_it_was_decided() -> None:
    renderer = Renderer(Theme(color=False), cells=80)
    renderer.feed(Plan("1. Read it\n2. Change it", "proposed"))
    renderer.feed(Plan("1. Read it\n2. Change it", "approved", "accept-edits"))
    renderer.feed(Plan("x", "rejected", feedback="smaller steps"))
    shown = renderer.take()
    assert "◇ plan\n  1. Read it\n  2. Change it\n" in shown
    assert "◇ plan approved — mode accept-edits" in shown
    assert "◇ plan rejected: smaller steps" in shown
