"""`auger models`, `auger login` and `auger logout` as real processes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def test_models_lists_the_catalog_with_prices_and_sources(project: Project) -> None:
    result = project.run("models", "--provider", "anthropic")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    opus = next(line for line in lines if line.startswith("anthropic/claude-opus-5-5 "))
    assert "1,000,000" in opus and "4/20/0.2/5" in opus and "adaptive" in opus
    assert "openai/" not in result.stdout
    assert "sonnet → claude-sonnet-5-5" in result.stdout
    assert "checked 2026-12-01: https://platform.claude.com/" in result.stdout


def test_models_shows_long_context_rates_and_retired_models(project: Project) -> None:
    result = project.run("models", "--provider", "anthropic")
    lines = result.stdout.splitlines()
    haiku = lines.index(
        next(line for line in lines if line.startswith("anthropic/claude-haiku-5-5"))
    )
    assert lines[haiku + 1].split() == [">", "100,000", "0.5/2.5/-/0.625"]  # its long prompts
    assert "claude-sonnet-4-5 (2026-11-30, use claude-sonnet-5-5)" in result.stdout


def test_models_of_an_unknown_provider(project: Project) -> None:
    result = project.run("models", "--provider", "nope")
    assert result.returncode == 2 and "the catalog has anthropic" in result.stderr


def test_login_stores_the_key_0600_and_logout_forgets_it(project: Project) -> None:
    result = project.run("login", "groq", stdin="gsk-123\n")
    assert result.returncode == 0, result.stderr
    auth = project.home / "auth.json"
    assert json.loads(auth.read_text()) == {"GROQ_API_KEY": "gsk-123"}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert "gsk-123" not in result.stdout + result.stderr
    result = project.run("logout", "groq")
    assert result.returncode == 0 and "removed GROQ_API_KEY" in result.stdout
    assert json.loads(auth.read_text()) == {}


def test_login_to_a_local_provider_needs_no_key(project: Project) -> None:
    result = project.run("login", "ollama", stdin="x\n")
    assert result.returncode == 2 and "needs no key" in result.stderr
