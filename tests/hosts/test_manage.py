"""`auger models` and `auger login`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from auger.llm.catalog import known_models
from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def test_models_lists_the_catalog_and_configured_providers(project: Project) -> None:
    project.settings(
        {"providers": {"ollama": {"api": "chat-completions", "models": {"qwen3": {}}}}}
    )
    result = project.run("models", "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert listed == [*known_models(), "ollama/qwen3"]


def test_login_keeps_the_key_in_auth_json(project: Project) -> None:
    result = project.run("login", "anthropic", stdin="sk-ant-test\n")
    assert result.returncode == 0, result.stderr
    auth = project.home / "auth.json"
    assert json.loads(auth.read_text()) == {"ANTHROPIC_API_KEY": "sk-ant-test"}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert "sk-ant-test" not in result.stdout + result.stderr


def test_login_to_an_unknown_provider_is_a_usage_error(project: Project) -> None:
    result = project.run("login", "nowhere", stdin="key\n")
    assert result.returncode == 2
    assert result.stderr.startswith("auger: unknown provider 'nowhere'")
    assert not (project.home / "auth.json").exists()


def test_login_without_a_key_is_refused(project: Project) -> None:
    result = project.run("login", "openai", stdin="\n")
    assert (result.returncode, result.stderr) == (2, "auger: no key given\n")
