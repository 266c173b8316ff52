"""Git is inert (SPEC §6): every git call auger makes — the `@` file finder, checkpoints and
`/undo` — ignores what a repository's config (or the user's global one, or an included file)
says to run: fsmonitor, hooks, pagers, filters, textconv, external diff."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from auger.commands.checkpoints import ShadowStore
from auger.commands.file_finder import project_files
from auger.tools.git import git_command

KEYS = {
    "core.fsmonitor": "touch {m}",
    "core.hooksPath": "{hooks}",
    "core.pager": "touch {m}; cat",
    "diff.external": "touch {m}",
    "filter.evil.clean": "touch {m}; cat",
    "filter.evil.smudge": "touch {m}; cat",
    "filter.evil.process": "touch {m}",
    "diff.evil.textconv": "touch {m}; cat",
    "core.sshCommand": "touch {m}",
}


def hostile_repo(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A repository whose own config, an included file and the user's global config each set
    every key above to leave a marker; returns the repo, the marker folder and the env."""
    repo, marks, hooks = tmp_path / "repo", tmp_path / "marks", tmp_path / "hooks"
    for folder in (repo, marks, hooks):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("one\n")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)

    def section(where: str) -> str:
        lines = []
        for key, value in KEYS.items():
            *head, name = key.split(".")
            header = f'[{head[0]} "{head[1]}"]' if len(head) == 2 else f"[{head[0]}]"
            setting = value.format(m=marks / (where + key), hooks=hooks)
            lines.append(f"{header}\n\t{name} = {setting}")
        return "\n".join(lines) + "\n"

    included, global_config = tmp_path / "included.cfg", tmp_path / "home" / ".gitconfig"
    included.write_text(section("include-"))
    global_config.parent.mkdir()
    global_config.write_text(section("global-"))
    config = repo / ".git" / "config"
    config.write_text(
        config.read_text()
        + section("repo-")
        + f"[include]\n\tpath = {included}\n"
        + f'[includeIf "gitdir:{repo}/"]\n\tpath = {included}\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(global_config.parent)}
    return repo, marks, env


def test_the_file_finder_runs_nothing_a_config_names(tmp_path: Path) -> None:
    repo, marks, _ = hostile_repo(tmp_path)
    assert "a.txt" in project_files(repo)
    assert sorted(p.name for p in marks.iterdir()) == []


async def test_checkpoints_run_nothing_a_config_names(tmp_path: Path) -> None:
    repo, marks, env = hostile_repo(tmp_path)
    store = ShadowStore(tmp_path / "store", repo, env)
    before = await store.snapshot()
    (repo / "a.txt").write_text("two\n")
    after = await store.snapshot()
    assert await store.changed(before, after) == ["a.txt"]
    await store.restore(before, ["a.txt"])
    assert (repo / "a.txt").read_text() == "one\n"
    assert sorted(p.name for p in marks.iterdir()) == []


@pytest.mark.parametrize("key", sorted(KEYS))
def test_the_hostile_config_does_run_without_the_helper(tmp_path: Path, key: str) -> None:
    """The check above can fail: plain git over the same repository reads these keys."""
    repo, _, env = hostile_repo(tmp_path)
    done = subprocess.run(
        ["git", "-C", str(repo), "config", "--get", key], env=env, capture_output=True, text=True
    )
    assert done.stdout.strip(), key
    argv, inert = git_command(["-C", str(repo), "config", "--get", key], env)
    overridden = subprocess.run(argv, env=inert, capture_output=True, text=True).stdout.strip()
    assert overridden != done.stdout.strip() or key.startswith(("filter.", "diff.evil")), key


def test_plain_git_ls_files_runs_the_fsmonitor(tmp_path: Path) -> None:
    repo, marks, env = hostile_repo(tmp_path)
    subprocess.run(["git", "-C", str(repo), "ls-files"], env=env, capture_output=True)
    assert any(p.name.endswith("core.fsmonitor") for p in marks.iterdir())
