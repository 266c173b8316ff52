"""Prompt templates become `/name` commands with `$1`…`$9`, `$@` and `$ARGUMENTS`."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.commands.templates import expand, templates
from auger.config.trust import TrustStore
from auger.llm.scripted import Reply, ScriptedProvider
from support.runtime import make_runtime


def test_expand_positional_all_and_raw() -> None:
    template = "Fix $1 in $2. All: $@. Raw: $ARGUMENTS. Missing: [$3]"
    assert expand(template, 'bug "src/a b.py"') == (
        'Fix bug in src/a b.py. All: bug src/a b.py. Raw: bug "src/a b.py". Missing: []'
    )


def test_templates_are_found_in_the_user_s_and_the_project_s_folders(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (home / "prompts").mkdir(parents=True)
    (cwd / ".auger" / "prompts").mkdir(parents=True)
    (home / "prompts" / "review.md").write_text("user")
    (home / "prompts" / "plan.md").write_text("user plan")
    (cwd / ".auger" / "prompts" / "review.md").write_text("project")
    user, project = templates(home, cwd)
    assert user == {"plan": home / "prompts" / "plan.md", "review": home / "prompts" / "review.md"}
    assert project == {"review": cwd / ".auger" / "prompts" / "review.md"}


@pytest.mark.parametrize("trusted", [False, True])
async def test_a_project_template_wins_over_the_user_s_only_when_trusted(
    tmp_path: Path, trusted: bool
) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("done")]), bundled=True)
    (rt.home / "prompts").mkdir(parents=True)
    (rt.home / "prompts" / "review.md").write_text("the user's review")
    (rt.cwd / ".auger" / "prompts").mkdir(parents=True)
    (rt.cwd / ".auger" / "prompts" / "review.md").write_text("the project's review")
    if trusted:
        TrustStore(rt.home).trust(rt.cwd)
    await rt.reload()
    assert rt.commands["review"].description == (
        "the project's review" if trusted else "the user's review"
    )


async def test_template_command_runs_the_expanded_prompt(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("done")])
    rt = make_runtime(tmp_path, provider, bundled=True)
    folder = rt.cwd / ".auger" / "prompts"
    folder.mkdir(parents=True)
    (folder / "fix.md").write_text(
        "---\ndescription: fix an issue\n---\nFix issue #$1: $ARGUMENTS\n"
    )
    await rt.reload()
    assert rt.commands["fix"].description == "fix an issue"
    records = [r async for r in rt.run_command("fix", "42 quickly")]
    assert records[-1].text == "done"
    assert provider.requests[0].messages[-1].text == "Fix issue #42: 42 quickly"
