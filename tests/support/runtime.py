"""Helpers for tests that drive a Runtime in-process with the scripted provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger.llm.records import Record
from auger.llm.scripted import ScriptedProvider
from auger.runtime import Runtime


class TickClock:
    """A clock that advances by `step` seconds every time it is read."""

    def __init__(self, start: float = 100.0, step: float = 1.0) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def make_runtime(tmp_path: Path, provider: ScriptedProvider, **options: Any) -> Runtime:
    """An isolated Runtime: its own home, user home and cwd under `tmp_path`, a bare env, and
    permission mode `auto` unless `settings` are given (tests of permissions set their own)."""
    home = tmp_path / "home"
    cwd = tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    options.setdefault("bundled", False)
    options.setdefault("env", {"HOME": str(tmp_path / "user")})
    options.setdefault("settings", {"permissions": {"mode": "auto"}})
    return Runtime(provider=provider, home=home, cwd=cwd, **options)


async def collect(runtime: Runtime, text: str) -> list[Record]:
    """Every record of one prompt."""
    return [record async for record in runtime.prompt(text)]


def types(records: list[Record]) -> list[str]:
    """The `type` of each record."""
    return [r.type for r in records]
