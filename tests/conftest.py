"""Fixtures for the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.server import FakeServer


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A `FakeServer` on 127.0.0.1, closed after the test."""
    with FakeServer() as server:
        yield server
