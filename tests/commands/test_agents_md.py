"""AGENTS.md (or CLAUDE.md) from ~/.auger and from the repository root down to cwd."""

from __future__ import annotations

from pathlib import Path

from auger.commands.agents_md import instruction_files, render
from auger.llm.scripted import Reply, ScriptedProvider
from support.context import contexts
from support.runtime import collect, make_runtime


def test_files_from_home_then_root_down_to_cwd_with_claude_md_as_fallback(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    home.mkdir()
    (repo / ".git").mkdir()
    (home / "AGENTS.md").write_text("home rules")
    (repo / "AGENTS.md").write_text("repo rules")
    (repo / "CLAUDE.md").write_text("ignored: AGENTS.md wins here")
    (repo / "a" / "CLAUDE.md").write_text("a rules")
    (cwd / "AGENTS.md").write_text("b rules")
    (tmp_path / "AGENTS.md").write_text("above the repo: not read")
    assert instruction_files(home, cwd) == [
        home / "AGENTS.md",
        repo / "AGENTS.md",
        repo / "a" / "CLAUDE.md",
        cwd / "AGENTS.md",
    ]
    text = render(home, cwd)
    assert text.index("home rules") < text.index("repo rules") < text.index("b rules")


async def test_agents_md_reaches_the_model_in_the_context_message(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    (rt.cwd / "AGENTS.md").write_text("Use tabs.")
    await collect(rt, "one")
    request = provider.requests[0]
    [context] = contexts(request.messages)
    assert "Use tabs." in context and "Use tabs." not in request.system
    assert request.messages[-1].text == "one"


async def test_an_edited_agents_md_adds_a_context_message_at_the_next_turn(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider([Reply.of("a"), Reply.of("b")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    (rt.cwd / "AGENTS.md").write_text("Use tabs.")
    await collect(rt, "one")
    (rt.cwd / "AGENTS.md").write_text("Use spaces.")
    await collect(rt, "two")
    first, second = provider.requests
    assert second.messages[: len(first.messages)] == first.messages
    old, new = contexts(second.messages)
    assert "Use tabs." in old and "Use spaces." in new and "Use tabs." not in new
    assert [m.text for m in second.messages[-2:]] == [new, "two"]


async def test_disabled_by_name(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("a")])
    rt = make_runtime(tmp_path, provider, bundled=True, disable=["agents_md"])
    (rt.cwd / "AGENTS.md").write_text("Use tabs.")
    await collect(rt, "one")
    assert "Use tabs." not in provider.requests[0].system
    assert not any("Use tabs." in c for c in contexts(provider.requests[0].messages))
