"""Reloading extensions: `/reload`, the automatic check of file times, and failed reloads."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from auger.commands import builtin
from auger.llm.provider import Request
from auger.llm.records import Record
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.llm.usage import Usage
from auger.records import CommandOutput, Notify
from auger.runtime import Runtime
from support.context import conversation
from support.extensions import Extensions, runtime
from support.runtime import collect, types

VERSION = """
def extension(g):
    g.on("turn_start", lambda e: record(e, version={n}))
    g.on("context", lambda e: record(e, version={n}))
    g.on("session_start", lambda e: record(e, version={n}))
"""
COMMANDS = ("commands", builtin.extension)


@pytest.fixture
def exts(tmp_path: Path) -> Extensions:
    """Extension files under `tmp_path`, and the log their handlers write."""
    return Extensions.make(tmp_path)


def write_version(exts: Extensions, n: int) -> Path:
    """The `versioned` extension at version `n`, its file time moved forward so a check sees it."""
    path = exts.write("versioned", VERSION.format(n=n))
    later = time.time() + n
    os.utime(path, (later, later))
    return path


def versions(exts: Extensions, type_: str) -> list[int]:
    """Which version of the extension handled each `type_` event."""
    return [s["version"] for s in exts.seen(type_)]


async def reload(rt: Runtime) -> list[Record]:
    """Every record of `/reload`."""
    return [record async for record in rt.run_command("reload")]


async def test_reload_swaps_the_handlers_and_keeps_the_session(
    tmp_path: Path, exts: Extensions
) -> None:
    provider = ScriptedProvider(
        [Reply.of("one", usage=Usage(10, 2)), Reply.of("two", usage=Usage(20, 3))]
    )
    rt = runtime(tmp_path, provider, write_version(exts, 1), COMMANDS)
    await collect(rt, "first")
    session, model, usage = rt.session_id, rt.model, rt.usage_total
    write_version(exts, 2)
    records = await reload(rt)
    assert [r.text for r in records if isinstance(r, CommandOutput)] == ["Extensions reloaded."]
    assert types(records)[-1] == "turn_end"
    records = await collect(rt, "second")
    root = str(rt.cwd)
    assert [r.to_dict() for r in records[:2]] == [
        {"type": "session_end", "reason": "reload", "root": root},
        {"type": "session_start", "id": session, "reason": "reload", "root": root},
    ]
    assert versions(exts, "session_start") == [1, 2]
    assert versions(exts, "turn_start") == [1, 2]
    sent = conversation(provider.requests[1].messages)
    assert [m.text for m in sent] == ["first", "one", "second"]
    assert (rt.session_id, rt.model, usage) == (session, model, Usage(10, 2))
    assert (rt.usage_total.input_tokens, rt.usage_total.output_tokens) == (30, 5)


async def test_a_reload_that_fails_changes_nothing(tmp_path: Path, exts: Extensions) -> None:
    path = write_version(exts, 1)
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two")])
    rt = runtime(tmp_path, provider, path, COMMANDS)
    await collect(rt, "first")
    path.write_text("def extension(g)\n")
    records = await reload(rt)
    assert [(r.level, r.message) for r in records if isinstance(r, Notify)] == [
        (
            "error",
            "reload failed, nothing changed: Extension versioned failed to load: "
            "versioned.py line 1: expected ':'",
        )
    ]
    assert not any(isinstance(r, CommandOutput) for r in records)
    records = await collect(rt, "second")
    assert "session_end" not in types(records)
    assert versions(exts, "turn_start") == [1, 1]


def rewrite_then(exts: Extensions, n: int, reply: Reply) -> Callable[[Request], Reply]:
    """A scripted reply that first changes the extension to version `n`."""

    def script(request: Request) -> Reply:
        write_version(exts, n)
        return reply

    return script


async def test_a_file_changed_during_a_turn_is_reloaded_at_the_next_model_call(
    tmp_path: Path, exts: Extensions
) -> None:
    provider = ScriptedProvider(
        [
            rewrite_then(exts, 2, Reply.of(Call("nothing"))),
            Reply.of("done"),
            Reply.of("again"),
        ]
    )
    rt = runtime(tmp_path, provider, write_version(exts, 1))
    await collect(rt, "first")
    assert versions(exts, "context") == [1, 2]
    records = await collect(rt, "second")
    assert types(records)[:2] == ["session_end", "session_start"]


async def test_a_file_changed_between_prompts_is_reloaded_before_the_next_one(
    tmp_path: Path, exts: Extensions
) -> None:
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two")])
    rt = runtime(tmp_path, provider, write_version(exts, 1))
    await collect(rt, "first")
    write_version(exts, 2)
    records = await collect(rt, "second")
    assert types(records)[:2] == ["session_end", "session_start"]
    assert versions(exts, "turn_start") == [1, 2]


async def test_an_automatic_reload_that_fails_changes_nothing(
    tmp_path: Path, exts: Extensions
) -> None:
    path = write_version(exts, 1)
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two"), Reply.of("three")])
    rt = runtime(tmp_path, provider, path)
    await collect(rt, "first")
    path.write_text("raise ImportError('half-saved')\n")
    os.utime(path, (time.time() + 5, time.time() + 5))
    records = await collect(rt, "second")
    assert [r.message for r in records if isinstance(r, Notify)] == [
        "reload failed, nothing changed: Extension versioned failed to load: half-saved"
    ]
    records = await collect(rt, "third")
    assert "notify" not in types(records) and "session_end" not in types(records)
    assert versions(exts, "context") == [1, 1, 1]
