"""Prompt templates become `/name` commands with `$1`…`$9`, `$@` and `$ARGUMENTS`."""

from __future__ import annotations

from pathlib import Path

from auger.commands.templates import expand, templates
from auger.llm.scripted import Reply, ScriptedProvider
from support.runtime import make_runtime


def test_expand_positional_all_and_raw() -> None:
    template = "Fix $1 in $2. All: $@. Raw: $ARGUMENTS. Missing: [$3]"
    assert expand(template, 'bug "src/a b.py"') == (
        'Fix bug in src/a b.py. All: bug src/a b.py. Raw: bug "src/a b.py". Missing: []'
    )


def test_project_templates_win_over_the_user_s(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (home / "prompts").mkdir(parents=True)
    (cwd / ".auger" / "prompts").mkdir(parents=True)
    (home / "prompts" / "review.md").write_text("user")
    (home / "prompts" / "plan.md").write_text("user plan")
    (cwd / ".auger" / "prompts" / "review.md").write_text("project")
    found = templates(home, cwd)
    assert found["review"] == cwd / ".auger" / "prompts" / "review.md"
    assert found["plan"] == home / "prompts" / "plan.md"


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
