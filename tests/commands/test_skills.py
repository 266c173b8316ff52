"""Agent Skills: discovery precedence, validation, the listing, and `/skill:<name>`."""

from __future__ import annotations

from pathlib import Path

from auger.commands.skills import discover, inline, listing, skill_dirs
from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import Notify, SkillActivated
from support.context import contexts
from support.runtime import collect, make_runtime


def write_skill(
    folder: Path, name: str, description: str, body: str = "Do it.", **extra: str
) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = "".join(f"{k}: {v}\n" for k, v in extra.items())
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{meta}---\n{body}\n")
    return path


def test_closest_skill_wins_and_the_user_folder_comes_last(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    (repo / ".git").mkdir()
    home = tmp_path / "home"
    write_skill(repo / ".agents" / "skills", "review", "repo review")
    write_skill(cwd / ".agents" / "skills", "review", "closest review")
    write_skill(home / ".agents" / "skills", "review", "user review")
    write_skill(home / ".agents" / "skills", "deploy", "user deploy")
    write_skill(tmp_path / ".agents" / "skills", "outside", "above the repo root")
    skills, problems = discover(skill_dirs(cwd, home, []))
    assert problems == []
    assert {s.name: s.description for s in skills} == {
        "review": "closest review",
        "deploy": "user deploy",
    }


def test_invalid_skills_are_reported_and_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    write_skill(folder, "good", "fine")
    write_skill(folder, "Bad_Name", "x")
    bad = folder / "mismatch" / "SKILL.md"
    bad.parent.mkdir()
    bad.write_text("---\nname: other\ndescription: d\n---\nbody\n")
    nodesc = folder / "nodesc" / "SKILL.md"
    nodesc.parent.mkdir()
    nodesc.write_text("---\nname: nodesc\n---\nbody\n")
    skills, problems = discover([folder])
    assert [s.name for s in skills] == ["good"]
    assert len(problems) == 3
    assert any("must match its directory" in p for p in problems)
    assert any("description is missing" in p for p in problems)


def test_listing_leaves_out_skills_the_model_may_not_invoke(tmp_path: Path) -> None:
    write_skill(tmp_path, "shown", "shown skill")
    write_skill(tmp_path, "hidden", "hidden skill", **{"disable-model-invocation": "true"})
    skills, _ = discover([tmp_path])
    text = listing(skills)
    assert "<name>shown</name>" in text and "hidden" not in text
    assert str(tmp_path / "shown" / "SKILL.md") in text


def test_inline_text_is_exact(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "review", "reviews code", body="Check the tests first.")
    skill = discover([tmp_path])[0][0]
    assert inline(skill, "src/") == (
        f'<skill name="review" location="{path}">\n'
        f"References are relative to {path.parent}.\n\n"
        "Check the tests first.\n</skill>\n\nsrc/"
    )


async def test_skill_command_activates_and_sends_the_inlined_skill(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("reviewed")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    write_skill(rt.cwd / ".agents" / "skills", "review", "reviews code", body="Be thorough.")
    await rt.reload()
    records = [r async for r in rt.run_command("skill:review", "src/")]
    assert any(isinstance(r, SkillActivated) and r.name == "review" for r in records)
    assert records[-1].type == "turn_end" and records[-1].text == "reviewed"
    sent = provider.requests[0].messages[-1].text
    assert sent.startswith('<skill name="review"') and sent.endswith(
        "Be thorough.\n</skill>\n\nsrc/"
    )


async def test_skills_are_listed_in_the_context_message(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    write_skill(rt.cwd / ".agents" / "skills", "review", "reviews code", body="Be thorough.")
    await rt.reload()
    await collect(rt, "hi")
    [context] = contexts(provider.requests[0].messages)
    assert "<name>review</name>" in context
    assert "<name>review</name>" not in provider.requests[0].system


async def test_invalid_skill_is_a_notice(tmp_path: Path) -> None:
    rt = make_runtime(
        tmp_path, ScriptedProvider([Reply.of("x")]), bundled=True, env={"HOME": str(tmp_path)}
    )
    write_skill(rt.cwd / ".agents" / "skills", "BAD", "x")
    await rt.reload()
    records = await collect(rt, "hi")
    assert any(isinstance(r, Notify) and "skill BAD skipped" in r.message for r in records)
