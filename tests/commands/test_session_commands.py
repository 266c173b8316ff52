"""`/init`, `/clear`, `/copy` and `/hotkeys`."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import CommandOutput
from support.context import conversation
from support.runtime import make_runtime


async def said(rt, name: str, args: str = "") -> str:
    records = [r async for r in rt.run_command(name, args)]
    return "\n".join(r.text for r in records if isinstance(r, CommandOutput))


async def test_init_has_the_model_write_agents_md(tmp_path: Path) -> None:
    write = Call("write", {"path": "AGENTS.md", "content": "# Agents\nRun `make test`.\n"})
    provider = ScriptedProvider([Reply.of(write), Reply.of("Wrote AGENTS.md.")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    records = [r async for r in rt.run_command("init", "mention the Makefile")]
    assert records[-1].type == "turn_end" and records[-1].text == "Wrote AGENTS.md."
    prompt = conversation(provider.requests[0].messages)[0].text
    assert "write an AGENTS.md file" in prompt and prompt.endswith("Also: mention the Makefile")
    assert "already an AGENTS.md" not in prompt
    assert (rt.cwd / "AGENTS.md").read_text().startswith("# Agents")


async def test_init_improves_an_existing_agents_md(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("Updated.")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    (rt.cwd / "AGENTS.md").write_text("old\n")
    [r async for r in rt.run_command("init")]
    assert "already an AGENTS.md" in conversation(provider.requests[0].messages)[0].text


async def test_clear_starts_an_empty_session(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("hi")]), bundled=True)
    [r async for r in rt.prompt("hello")]
    first = rt.session_id
    text = await said(rt, "clear")
    assert text == f"Cleared: a new session (the previous one is {first})."
    assert rt.session_id != first and rt.messages == []


def fake_clipboard(tmp_path: Path) -> tuple[dict[str, str], Path]:
    bin_dir, sink = tmp_path / "bin", tmp_path / "clipboard.txt"
    bin_dir.mkdir()
    tool = bin_dir / "xclip"
    tool.write_text(f"#!/bin/sh\n[ \"$1 $2\" = '-selection clipboard' ] || exit 9\ncat > {sink}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "DISPLAY": ":0"}, sink


async def test_copy_puts_the_last_reply_on_the_clipboard(tmp_path: Path) -> None:
    env, sink = fake_clipboard(tmp_path)
    provider = ScriptedProvider([Reply.of("first"), Reply.of("the answer")])
    rt = make_runtime(tmp_path, provider, bundled=True, env=env)
    [r async for r in rt.prompt("one")]
    [r async for r in rt.prompt("two")]
    assert await said(rt, "copy") == "Copied the last reply (10 characters)."
    assert sink.read_text() == "the answer"


async def test_copy_without_a_clipboard_tool_says_so(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path / "empty")}
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("reply")]), bundled=True, env=env)
    [r async for r in rt.prompt("one")]
    assert (await said(rt, "copy")).startswith("Not copied: no clipboard tool found")


async def test_hotkeys_lists_the_keys(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    text = await said(rt, "hotkeys")
    assert "Esc" in text and "cancel the running turn" in text and "Ctrl-O" in text
