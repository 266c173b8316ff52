"""The session rows of SPEC §2 — `session_before_compact`, `compact`, `session_before_fork`,
`session_before_switch` — through real extension files, via the Runtime API and `auger -p`."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import Compact
from auger.session.context import COMPACTION_PREFIX
from support.cli import Project, json_lines
from support.extensions import Extensions, runtime
from support.runtime import collect

KEEP = {"compaction": {"keep_recent_tokens": 5}}


@pytest.fixture
def exts(tmp_path: Path) -> Extensions:
    return Extensions.make(tmp_path)


async def two_turns(rt) -> None:  # type: ignore[no-untyped-def]
    await collect(rt, "one")
    await collect(rt, "two")


async def test_compact_events_and_a_summary_supplied_by_a_handler(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "compactor",
        """
        def extension(g):
            g.on("session_before_compact", lambda e: record(e) or None)
            g.on("session_before_compact", lambda e: {"summary": "chained: " + str(e.instruction)})
            g.on("compact", record)
        """,
    )
    provider = ScriptedProvider([Reply.of("a1"), Reply.of("b1")])
    rt = runtime(tmp_path, provider, ext, settings=KEEP)
    await two_turns(rt)
    assert await rt.compact("tests")
    assert exts.seen("session_before_compact") == [
        {"type": "session_before_compact", "automatic": False, "instruction": "tests"}
    ]
    assert exts.seen("compact") == [
        {"type": "compact", "dropped": 2, "kept": 2, "automatic": False}
    ]
    assert rt.messages[0].text == COMPACTION_PREFIX + "chained: tests"
    assert len(provider.requests) == 2


async def test_false_cancels_compaction_and_ends_the_chain(
    tmp_path: Path, exts: Extensions
) -> None:
    ext = exts.write(
        "veto",
        """
        def extension(g):
            g.on("session_before_compact", lambda e: False)
            g.on("session_before_compact", lambda e: record(e))
            g.on("compact", record)
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("a1"), Reply.of("b1")]), ext, settings=KEEP)
    await two_turns(rt)
    assert not await rt.compact()
    assert exts.seen() == []


async def test_automatic_compaction_fires_with_automatic_true(
    tmp_path: Path, exts: Extensions
) -> None:
    from auger.llm.provider import Model
    from auger.llm.usage import Usage

    ext = exts.write(
        "watch",
        """
        def extension(g):
            g.on("session_before_compact", record)
            g.on("compact", record)
        """,
    )
    provider = ScriptedProvider(
        [Reply.of("a1"), Reply.of("b1", usage=Usage(5000, 10)), Reply.of("SUMMARY"), Reply.of("c1")]
    )
    settings = {"compaction": {"keep_recent_tokens": 5, "reserve_tokens": 1000}}
    tiny = Model("scripted", "tiny", "scripted", context_window=4000)
    rt = runtime(tmp_path, provider, ext, settings=settings, model=tiny)
    await two_turns(rt)
    records = await collect(rt, "three")
    assert [r.automatic for r in records if isinstance(r, Compact)] == [True]
    assert [e["automatic"] for e in exts.seen("session_before_compact")] == [True]
    assert exts.seen("compact")[0]["automatic"] is True


async def test_fork_and_switch_events(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "sessions",
        """
        def extension(g):
            g.on("session_before_fork", record)
            g.on("session_before_switch", record)
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("a1")]), ext)
    await collect(rt, "one")
    first_id, first_path, leaf = rt.session_id, rt.transcript_path, rt.session.leaf_id
    await rt.fork()
    forked_path = rt.transcript_path or rt.session.path
    await rt.switch(first_path)
    assert exts.seen() == [
        {"type": "session_before_fork", "id": first_id, "at": leaf},
        {"type": "session_before_switch", "from": str(forked_path), "to": str(first_path)},
    ]


async def test_false_cancels_fork_and_switch(tmp_path: Path, exts: Extensions) -> None:
    ext = exts.write(
        "stay",
        """
        def extension(g):
            g.on("session_before_fork", lambda e: False)
            g.on("session_before_switch", lambda e: False)
        """,
    )
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("a1")]), ext)
    await collect(rt, "one")
    before = rt.session_id
    assert await rt.fork() is None and await rt.new() is False
    assert rt.session_id == before


def test_session_events_through_print_mode(tmp_path: Path, exts: Extensions) -> None:
    project = Project.make(tmp_path)
    project.script(["a1", "b1"], compaction={"keep_recent_tokens": 5})
    ext = exts.write(
        "p_mode",
        """
        def extension(g):
            g.on("session_before_compact", lambda e: record(e) or {"summary": "S"})
            g.on("compact", record)
            g.on("session_before_fork", lambda e: record(e) or False)
            g.on("session_before_switch", record)
        """,
    )
    flags = ("-p", "--json", "--extension", str(ext))
    assert project.run(*flags, "one").returncode == 0
    assert project.run(*flags, "-c", "two").returncode == 0
    compacted = project.run(*flags, "-c", "/compact keep tests")
    assert compacted.returncode == 0, compacted.stderr
    records = json_lines(compacted.stdout)
    assert {"type": "compact", "dropped": 2, "kept": 2, "automatic": False} in records
    forked = json_lines(project.run(*flags, "-c", "/fork").stdout)
    assert any(r["type"] == "notify" and "fork cancelled" in r["message"] for r in forked)
    assert project.run(*flags, "-c", "/new").returncode == 0
    seen = exts.seen()
    assert [e["type"] for e in seen] == [
        "session_before_compact",
        "compact",
        "session_before_fork",
        "session_before_switch",
    ]
    assert seen[0] == {
        "type": "session_before_compact",
        "automatic": False,
        "instruction": "keep tests",
    }
