"""Where sessions live, finding one by id, and listing them."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import msgspec
import pytest

from auger.llm.usage import Usage
from auger.session.entries import SessionInfoEntry
from auger.session.header import SCHEMA_VERSION, SessionHeader
from auger.session.paths import (
    cwd_slug,
    find_session,
    latest_session,
    list_sessions,
    new_session_path,
    sessions_dir,
)
from auger.session.store import SessionError, SessionFile

from .conftest import assistant, user


def make(home: Path, cwd: str, session_id: str, *prompts: str, mtime: float = 0) -> Path:
    """A session of `cwd` with one prompt and a priced answer per prompt."""
    path = new_session_path(home, cwd, session_id)
    with SessionFile.create(path, SessionHeader(id=session_id, cwd=cwd)) as session:
        for prompt in prompts:
            session.append(user(prompt))
            session.append(assistant(usage=Usage(10, 5, cost=0.25)))
    if mtime and path.exists():
        os.utime(path, (mtime, mtime))
    return path


def test_slug_is_readable_safe_and_distinct() -> None:
    slug = cwd_slug("/work/main")
    assert re.fullmatch(r"work-main-[0-9a-f]{8}", slug)
    assert cwd_slug("/a-b") != cwd_slug("/a/b")
    assert cwd_slug("/work/main") == slug
    odd = cwd_slug("C:\\Users\\me\\my proj/ü:*?")
    assert re.fullmatch(r"[A-Za-z0-9._-]+", odd)
    assert odd.startswith("C-Users-me-my-proj-")
    assert re.fullmatch(r"[0-9a-f]{8}", cwd_slug("/"))
    long = cwd_slug("/x" * 200)
    assert len(long) <= 60 + 9
    assert not long.startswith("-")


def test_session_paths(tmp_path: Path) -> None:
    folder = sessions_dir(tmp_path, "/work/main")
    assert folder == tmp_path / "sessions" / cwd_slug("/work/main")
    assert new_session_path(tmp_path, "/work/main", "abc") == folder / "abc.jsonl"


def test_latest_session_is_the_most_recently_written(tmp_path: Path) -> None:
    assert latest_session(tmp_path, "/p") is None
    make(tmp_path, "/p", "old", "a", mtime=1_000)
    newer = make(tmp_path, "/p", "new", "b", mtime=2_000)
    make(tmp_path, "/other", "elsewhere", "c", mtime=3_000)
    assert latest_session(tmp_path, "/p") == newer


def test_find_session_by_unique_prefix(tmp_path: Path) -> None:
    abc = make(tmp_path, "/p", "abc123", "x")
    make(tmp_path, "/p", "abd456", "y")
    ab = make(tmp_path, "/p", "ab", "z")
    assert find_session(tmp_path, "/p", "abc") == abc
    assert find_session(tmp_path, "/p", "abc123") == abc
    assert find_session(tmp_path, "/p", "ab") == ab  # an exact id wins over longer ones
    with pytest.raises(SessionError, match=r"'a' matches 3 sessions .*give more of the id"):
        find_session(tmp_path, "/p", "a")
    with pytest.raises(SessionError, match="no session id starts with 'zz'"):
        find_session(tmp_path, "/p", "zz")
    with pytest.raises(SessionError, match="no session id"):
        find_session(tmp_path, "/nowhere", "abc")


def test_list_sessions(tmp_path: Path) -> None:
    first = make(tmp_path, "/p", "first", "Fix the bug", "and test it", mtime=1_000)
    make(tmp_path, "/p", "second", "Write docs", mtime=2_000)
    make(tmp_path, "/q", "third", "Elsewhere", mtime=3_000)
    make(tmp_path, "/p", "empty")  # never got a message: no file
    with SessionFile.open(first) as session:
        session.append(SessionInfoEntry("bug hunt"))
    os.utime(first, (1_000, 1_000))

    here = list_sessions(tmp_path, "/p")
    assert [summary.id for summary in here] == ["second", "first"]
    summary = here[1]
    assert (summary.title, summary.name, summary.cwd) == ("Fix the bug", "bug hunt", "/p")
    assert (summary.messages, summary.cost, summary.modified) == (4, 0.5, 1_000)
    assert summary.path == first
    assert summary.created
    everywhere = list_sessions(tmp_path)
    assert [summary.id for summary in everywhere] == ["third", "second", "first"]
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["path"] == str(first)
    assert data["cost"] == 0.5


def test_list_sessions_tolerates_bad_files(tmp_path: Path) -> None:
    good = make(tmp_path, "/p", "good", "a")
    with good.open("ab") as f:
        f.write(b'{"type":"message","id":"1')
    folder = good.parent
    (folder / "junk.jsonl").write_bytes(b"not a session\n")
    newer = {"type": "session", "version": SCHEMA_VERSION + 1, "id": "newer", "cwd": "/p"}
    (folder / "newer.jsonl").write_bytes(msgspec.json.encode(newer) + b"\n")
    (tmp_path / "sessions" / "stray.txt").write_text("x")
    summaries = list_sessions(tmp_path, "/p")
    assert [(summary.id, summary.messages) for summary in summaries] == [("good", 2)]
    assert list_sessions(tmp_path, "/nowhere") == []
    assert [summary.id for summary in list_sessions(tmp_path)] == ["good"]


def test_unpriced_sessions_have_no_cost(tmp_path: Path) -> None:
    path = new_session_path(tmp_path, "/p", "free")
    with SessionFile.create(path, SessionHeader(id="free", cwd="/p")) as session:
        session.append(user())
        session.append(assistant(usage=Usage(1, 1)))
    assert list_sessions(tmp_path, "/p")[0].cost is None
