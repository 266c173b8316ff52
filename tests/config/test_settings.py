"""Settings files: user settings with the project's merged over them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auger.config.errors import ConfigError
from auger.config.settings import load_settings, merge
from auger.config.trust import TrustStore


def test_project_settings_merge_over_user_settings(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (cwd / ".auger").mkdir(parents=True)
    home.mkdir()
    (home / "settings.json").write_text(
        json.dumps({"model": "a/b", "providers": {"x": {"api": "messages", "base_url": "u"}}})
    )
    (cwd / ".auger" / "settings.json").write_text(
        json.dumps({"providers": {"x": {"base_url": "v"}, "y": {}}})
    )
    TrustStore(home).trust(cwd)
    settings = load_settings(home, cwd)
    assert settings["model"] == "a/b"
    assert settings["providers"]["x"] == {"api": "messages", "base_url": "v"}
    assert settings["providers"]["y"] == {}


def test_missing_files_are_empty_settings(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "nope", tmp_path) == {}


def test_malformed_settings_name_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{\n  "model": "a/b",\n  oops\n}\n')
    with pytest.raises(ConfigError) as err:
        load_settings(tmp_path, tmp_path / "proj")
    message = str(err.value)
    assert "settings.json line 3" in message and "\n" not in message


def test_settings_must_be_an_object(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="must hold a JSON object"):
        load_settings(tmp_path, tmp_path / "proj")


def test_merge_replaces_non_objects() -> None:
    assert merge({"a": [1], "b": {"c": 1}}, {"a": [2], "b": {"d": 2}}) == {
        "a": [2],
        "b": {"c": 1, "d": 2},
    }


async def test_an_embedded_runtime_streams_the_trust_notice(tmp_path: Path) -> None:
    from auger.llm.scripted import ScriptedProvider
    from auger.records import Notify
    from auger.runtime import Runtime

    home, cwd = tmp_path / "home", tmp_path / "proj"
    (cwd / ".auger").mkdir(parents=True)
    (cwd / ".auger" / "settings.json").write_text(json.dumps({"hooks": {}, "retry": {}}))
    rt = Runtime(provider=ScriptedProvider(["ok"]), home=home, cwd=cwd, env={}, bundled=False)
    notices = [r.message async for r in rt.prompt("hi") if isinstance(r, Notify)]
    assert notices == [
        f"this project is not trusted, so these were ignored: hooks — run `auger trust {cwd}` "
        "to apply them"
    ]
    await rt.close()
