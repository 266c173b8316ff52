"""A saved session's history: the records its live stream yielded, the context message
hidden, read through the Runtime and through the public sessions module alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auger import sessions
from auger.llm.records import Record
from auger.llm.scripted import Call, Reasoning, Reply, ScriptedProvider
from auger.records import UserText
from auger.tools.base import tool
from support.runtime import collect, make_runtime


@tool
def shout(text: str) -> str:
    """Say it loud."""
    if text == "bad":
        raise ValueError("no")
    return text.upper()


def with_shout(g: Any) -> None:
    g.tool(shout)


SHOWN = ("reasoning_done", "text_done", "tool_call_done", "after_tool_call")


def drawn(records: list[Record]) -> list[dict[str, Any]]:
    """What a renderer draws of a stream: finished text and reasoning, calls and results."""
    out = []
    for record in records:
        if record.type in SHOWN:
            data = record.to_dict()
            data.pop("at", None), data.pop("duration", None), data.pop("signature", None)
            out.append(data)
    return out


def script() -> ScriptedProvider:
    return ScriptedProvider(
        [
            Reply.of(Reasoning("plan it"), "calling", Call("shout", {"text": "hi"}, "c1")),
            Reply.of(Call("shout", {"text": "bad"}, "c2")),
            Reply.of("done, twice"),
        ]
    )


async def test_history_draws_what_the_live_stream_drew(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, script(), extensions=[with_shout])
    live = await collect(rt, "go")
    history = list(rt.history())
    assert history[0] == UserText("go")  # the context message before it stays hidden
    assert [r for r in history if isinstance(r, UserText)] == [UserText("go")]
    assert drawn(history) == drawn(live)
    errors = [r.to_dict()["result"] for r in history if r.type == "after_tool_call"]
    assert errors[0]["content"] == "HI" and errors[1]["error_type"] is not None
    await rt.close()


async def test_a_saved_session_reads_the_same_history_through_the_sessions_module(
    tmp_path: Path,
) -> None:
    rt = make_runtime(tmp_path, script(), extensions=[with_shout])
    await collect(rt, "go")
    expected = [r.to_dict() for r in rt.history()]
    await rt.close()
    home, cwd = tmp_path / "home", tmp_path / "project"
    [summary] = sessions.list(home, cwd)
    path = sessions.find(home, cwd, summary.id[:4])
    assert path == sessions.latest(home, cwd) == rt.transcript_path
    assert [r.to_dict() for r in sessions.history(sessions.open(path))] == expected
    reopened = make_runtime(
        tmp_path, script(), extensions=[with_shout], session=sessions.open(path)
    )
    assert [r.to_dict() for r in reopened.history()] == expected
    await reopened.close()
