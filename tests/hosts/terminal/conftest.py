"""The terminal's tests: a project, and the tmux panes a test started, stopped after it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import Project
from support.tmux import Pane


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


@pytest.fixture
def panes() -> Iterator[list[Pane]]:
    started: list[Pane] = []
    yield started
    for pane in started:
        pane.kill()
