"""`auger models` lists the clouds' models and every provider's sign-in state, as a process."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def _sign_in(stdout: str) -> list[str]:
    return [line.removeprefix("  sign-in: ") for line in stdout.splitlines() if "sign-in:" in line]


def test_models_lists_bedrock_and_vertex_unpriced_with_their_sources(project: Project) -> None:
    result = project.run("models")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    bedrock = next(x for x in lines if x.startswith("bedrock/anthropic.claude-opus-4-6-v1 "))
    vertex = next(x for x in lines if x.startswith("vertex/claude-sonnet-4-5@20250929 "))
    assert "1,000,000" in bedrock and "unpriced" in bedrock and "adaptive" in bedrock
    assert "200,000" in vertex and "unpriced" in vertex and "budget" in vertex
    assert "vertex/gemini-3.8-flash" in result.stdout
    assert "claude-on-amazon-bedrock-legacy" in result.stdout
    assert "claude-on-vertex-ai" in result.stdout


def test_each_provider_says_how_it_is_signed_in(project: Project, tmp_path: Path) -> None:
    adc = tmp_path / "adc.json"
    adc.write_text('{"type": "authorized_user"}')
    project.env |= {"AWS_PROFILE": "work", "GOOGLE_APPLICATION_CREDENTIALS": str(adc)}
    project.env["OPENAI_API_KEY"] = "sk-set"
    assert project.run("login", "xai", stdin="xai-123\n").returncode == 0
    states = {}
    for provider in ("bedrock", "vertex", "openai", "xai", "google"):
        result = project.run("models", "--provider", provider)
        assert result.returncode == 0, result.stderr
        states[provider] = _sign_in(result.stdout)
    assert states == {
        "bedrock": ["AWS profile work"],
        "vertex": [f"ADC file {adc} (GOOGLE_APPLICATION_CREDENTIALS)"],
        "openai": ["OPENAI_API_KEY set"],
        "xai": ["XAI_API_KEY saved by `auger login xai`"],
        "google": ["not signed in — set GEMINI_API_KEY or run `auger login google`"],
    }


def test_clouds_without_credentials_say_what_to_run(project: Project) -> None:
    project.env |= {
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    }
    bedrock = _sign_in(project.run("models", "--provider", "bedrock").stdout)
    vertex = _sign_in(project.run("models", "--provider", "vertex").stdout)
    assert (
        bedrock[0].startswith("not signed in — set AWS_ACCESS_KEY_ID")
        and "aws sso login" in bedrock[0]
    )
    assert vertex == [
        "not signed in — run `gcloud auth application-default login` "
        "(a VM's service account is used where there is one)"
    ]


@pytest.mark.parametrize(
    ("cloud", "how"), [("bedrock", "aws sso login"), ("vertex", "gcloud auth")]
)
def test_login_to_a_cloud_says_how_it_signs_in(project: Project, cloud: str, how: str) -> None:
    result = project.run("login", cloud, stdin="a-key\n")
    assert result.returncode == 2 and "needs no key" in result.stderr and how in result.stderr
    assert not (project.home / "auth.json").exists()  # nothing was saved
