"""The loader: which `sys.path` folders may hold installed packages, and `build`, the one way
every host makes a Runtime (the settings files read once, the rules checked once)."""

from __future__ import annotations

import ast
import json
import os
import sys
from os import PathLike
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auger.config.errors import ConfigError
from auger.config.project import project_root
from auger.llm.scripted import Reply, ScriptedProvider
from auger.loader import Options, build, install_paths
from support.hosts import Answering


def test_the_project_is_never_an_install_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    cwd = root / "pkg" / "sub"
    venv = root / ".venv" / "lib" / "site-packages"
    for folder in (cwd, venv, root / ".git", root / "src"):
        folder.mkdir(parents=True)
    (tmp_path / "link").symlink_to(cwd)
    entries = ["", ".", "relative", str(cwd), str(root / "pkg"), str(root), str(tmp_path / "link")]
    kept = [str(venv), str(root / "src"), str(tmp_path), "/usr/lib/python3/dist-packages"]
    monkeypatch.setattr(sys, "path", entries + kept)
    assert project_root(cwd) == root
    assert install_paths(cwd) == kept


_opened: list[str] | None = None  # the files opened while a test records them


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], str | bytes | PathLike):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


async def test_a_start_reads_each_settings_file_once(tmp_path: Path) -> None:
    global _opened
    home, cwd = tmp_path / "home", tmp_path / "project"
    (cwd / ".auger" / "extensions").mkdir(parents=True)
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"retry": {"attempts": 2}}))
    (cwd / ".auger" / "settings.json").write_text(json.dumps({"hooks": {}, "theme": "dark"}))
    (cwd / ".auger" / "extensions" / "mine.py").write_text("def extension(g):\n    pass\n")
    host = Answering(False)  # asked about trust, and says no
    wanted = Options(cwd=str(cwd), home=str(home), env={"HOME": str(tmp_path)})
    _opened = []
    try:
        rt = await build(wanted, host, provider=ScriptedProvider([Reply.of("hi")]))
    finally:
        opened, _opened = _opened, None
    settings = [p for p in opened if p.endswith(("settings.json", "settings.local.json"))]
    assert sorted(settings) == sorted(set(settings)) and len(settings) == 3
    assert len(host.asked) == 1 and "hooks" in host.asked[0] and "mine.py" in host.asked[0]
    assert rt.settings["retry"] == {"attempts": 2} and "hooks" not in rt.settings
    await rt.close()


async def test_a_bad_rule_in_settings_stops_the_start_naming_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash("]}}))
    wanted = Options(cwd=str(tmp_path), home=str(home), env={"HOME": str(tmp_path)})
    with pytest.raises(ConfigError) as raised:
        await build(wanted, provider=ScriptedProvider([]))
    assert str(raised.value) == "settings permissions: rule 'Bash(' is not Tool or Tool(specifier)"
    flagged = msgspec.structs.replace(wanted, allow=("Read(",))  # `--allow 'Read('`
    with pytest.raises(ConfigError) as raised:
        await build(flagged, provider=ScriptedProvider([]))
    assert str(raised.value) == "rule 'Read(' is not Tool or Tool(specifier)"


def test_only_the_loader_builds_a_runtime_and_checks_its_rules() -> None:
    src = Path(__file__).resolve().parents[1] / "src" / "auger"
    calls: dict[str, set[str]] = {"Runtime": set(), "check_rules": set()}
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                if name in calls:
                    calls[name].add(str(path.relative_to(src)))
    assert calls == {"Runtime": {"loader.py"}, "check_rules": {"loader.py"}}
