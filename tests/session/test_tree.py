"""`/tree`'s picker lines: the conversation top down, what was typed (not the files attached),
tool traffic folded, branches indented where they part."""

from __future__ import annotations

from pathlib import Path

from auger.llm.messages import TextPart
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.session.entries import MessageEntry
from auger.session.tree import choices
from support.runtime import make_runtime


async def test_the_picker_reads_top_down_with_tool_steps_folded(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of("", Call("ls", {})), Reply.of("Listed."), Reply.of("Second."), Reply.of("B.")]
    )
    rt = make_runtime(tmp_path, provider, bundled=True)
    attached = (TextPart('<file path="notes.txt">secret notes</file>'),)
    [r async for r in rt.prompt("look around", attached)]
    first_reply = [e for e in rt.session.branch() if isinstance(e, MessageEntry)][-1].id
    [r async for r in rt.prompt("and then?")]
    await rt.navigate(first_reply)
    [r async for r in rt.prompt("another way")]
    await rt.close()
    lines = [line.rsplit(" · ", 1)[0] for line in choices(rt.session)]
    assert lines == [
        "* user: look around",
        "* assistant: Listed. (+2 tool steps)",
        "  └ user: and then?",
        "  └ assistant: Second.",
        "* └ user: another way",
        "› └ assistant: B.",
    ]
