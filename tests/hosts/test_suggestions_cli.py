"""Near misses are caught before anything runs, with the likely meaning: a flag, a model name,
a provider; and a provider declared in settings is listed like the catalog's."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def test_a_mistyped_flag_is_suggested(project: Project) -> None:
    result = project.run("-p", "--modle", "anthropic/claude-sonnet-5-5", "hi")
    assert result.returncode == 2
    assert "--modle: did you mean --model?" in result.stderr


def test_a_mistyped_catalog_model_is_suggested_before_any_request(project: Project) -> None:
    project.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
    project.env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # nothing may be asked there
    result = project.run("-p", "--model", "anthropic/claude-sonet-5-5", "hi")
    assert result.returncode == 2
    assert "did you mean anthropic/claude-sonnet-5-5?" in result.stderr
    assert "cannot connect" not in result.stderr


def test_a_model_declared_in_settings_is_not_a_typo(project: Project) -> None:
    script = project.home / "script.json"
    script.write_text('[{"text": "my own model answered"}]')
    provider = {"api": "scripted", "script": str(script), "models": {"claude-sonet-5-5": {}}}
    project.settings({"providers": {"anthropic": provider}, "permissions": {"mode": "auto"}})
    project.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
    result = project.run("-p", "--model", "anthropic/claude-sonet-5-5", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "my own model answered\n"


def test_a_mistyped_provider_is_suggested_by_models(project: Project) -> None:
    result = project.run("models", "--provider", "anthropc")
    assert result.returncode == 2
    assert "did you mean anthropic?" in result.stderr


def test_a_provider_declared_in_settings_is_listed_by_models(project: Project) -> None:
    mine = {"api": "chat-completions", "base_url": "http://127.0.0.1:9/v1"}
    mine["models"] = {"big": {"context_window": 32000}}
    project.settings({"providers": {"mine": mine}})
    listed = project.run("models")
    assert listed.returncode == 0, listed.stderr
    assert "mine/big                            32,000" in listed.stdout
    only = project.run("models", "--provider", "mine")
    assert only.returncode == 0, only.stderr
    assert "mine/big" in only.stdout and "anthropic/" not in only.stdout
