"""Choosing a model and reaching its provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.config.errors import ConfigError
from auger.config.models import build_provider, choose_model, provider_config, resolve_model
from support.cli import Project


def test_flag_wins_over_env_and_settings() -> None:
    env = {"AUGER_MODEL": "openai/gpt-5"}
    settings = {"model": "anthropic/claude-haiku-4-5"}
    assert choose_model("anthropic/claude-opus-4-5", env, settings) == "anthropic/claude-opus-4-5"
    assert choose_model(None, env, settings) == "openai/gpt-5"
    assert choose_model(None, {}, settings) == "anthropic/claude-haiku-4-5"


def test_no_model_says_how_to_choose_one() -> None:
    with pytest.raises(ConfigError, match="--model PROVIDER/NAME"):
        choose_model(None, {}, {})


def test_a_model_without_a_provider() -> None:
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "k"}, {})
    with pytest.raises(ConfigError, match="names no provider"):
        resolve_model("claude-sonnet-4-5", config)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as err:
        provider_config("nope", {}, {"providers": {"local": {"api": "chat-completions"}}})
    assert "unknown provider 'nope'" in str(err.value)
    assert "anthropic, azure, bedrock, cerebras," in str(err.value)
    assert "llama.cpp, lmstudio, local, mistral" in str(err.value)


def test_builtin_provider_reads_key_and_base_url_from_env() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    config = provider_config("anthropic", env, {})
    assert (config.api, config.base_url, config.api_key) == (
        "messages",
        "http://127.0.0.1:9",
        "sk-1",
    )
    model = resolve_model("anthropic/claude-sonnet-5-5", config)
    assert model.pricing is not None and model.context_window == 1_000_000


def test_missing_key_names_the_variable() -> None:
    config = provider_config("openai", {}, {})
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
        build_provider(config)


def test_custom_openai_compatible_provider_needs_no_key() -> None:
    settings = {
        "providers": {
            "ollama": {
                "api": "chat-completions",
                "base_url": "http://127.0.0.1:11434/v1",
                "models": {"qwen3": {"context_window": 32768}},
            }
        }
    }
    config = provider_config("ollama", {}, settings)
    model = resolve_model("ollama/qwen3", config)
    assert (model.api, model.context_window, model.pricing) == ("chat-completions", 32768, None)
    provider = build_provider(config)
    assert provider.name == "ollama"


def test_custom_provider_key_from_a_named_variable() -> None:
    settings = {
        "providers": {
            "groq": {
                "api": "chat-completions",
                "base_url": "https://api.groq.com/openai/v1",
                "api_key_env": "GROQ_API_KEY",
            }
        }
    }
    with pytest.raises(ConfigError, match="set GROQ_API_KEY"):
        build_provider(provider_config("groq", {}, settings))
    config = provider_config("groq", {"GROQ_API_KEY": "g"}, settings)
    assert config.api_key == "g"


def test_bad_api_name() -> None:
    with pytest.raises(ConfigError, match='"api" must be one of'):
        provider_config("x", {}, {"providers": {"x": {"api": "soap", "base_url": "u"}}})


def test_auth_json_is_a_key_source_after_the_environment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os

    from auger.runtime import Runtime

    auth = tmp_path / "auth.json"
    auth.write_text('{"ANTHROPIC_API_KEY": "sk-from-file"}')
    os.chmod(auth, 0o600)
    rt = Runtime(
        "anthropic/claude-haiku-4-5",
        env={},
        home=tmp_path,
        cwd=tmp_path,
        settings={},
        bundled=False,
    )
    assert rt.provider.name == "anthropic"
    assert "ANTHROPIC_API_KEY" not in rt.env  # never handed to the commands tools run
    os.chmod(auth, 0o644)
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        Runtime(
            "anthropic/claude-haiku-4-5",
            env={},
            home=tmp_path,
            cwd=tmp_path,
            settings={},
            bundled=False,
        )


@pytest.mark.parametrize(
    ("flag", "spec"),
    [
        ("sonnet", "anthropic/claude-sonnet-5-5"),
        ("claude-sonnet-5-5", "anthropic/claude-sonnet-5-5"),
        ("fable", "anthropic/claude-fable-5-2"),
        ("grok-4.20", "xai/grok-4.20-0309-reasoning"),
        ("codestral", "mistral/codestral-2508"),
        ("gemini-3.8", "google/gemini-3.8-flash"),
        ("gpt-5", "openai/gpt-5"),
        ("nano", "openai/gpt-5-nano"),
        ("qwen3", "ollama/qwen3"),
        ("openrouter/anthropic/claude-sonnet-5", "openrouter/anthropic/claude-sonnet-5"),
    ],
)
def test_a_model_resolves_by_alias_or_unique_match(flag: str, spec: str) -> None:
    settings = {"providers": {"ollama": {"models": {"qwen3": {}}}}}
    assert choose_model(flag, {}, settings) == spec


def test_an_ambiguous_model_lists_the_candidates() -> None:
    with pytest.raises(ConfigError) as err:
        choose_model("mini", {}, {})
    assert "ambiguous" in str(err.value)
    assert "openai/gpt-4.1-mini" in str(err.value) and "openai/gpt-5-mini" in str(err.value)
    assert "gemini" not in str(err.value)  # a partial match starts a word of the name


def test_an_alias_after_the_provider_resolves_to_the_catalog_name() -> None:
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "k"}, {})
    model = resolve_model("anthropic/haiku", config)
    assert (model.name, model.pricing is not None) == ("claude-haiku-5-5", True)
    model = resolve_model("anthropic/claude-haiku-4-5", config)
    snapshot = resolve_model("anthropic/claude-haiku-4-5-20251001", config)  # sent as written
    assert (snapshot.name, snapshot.pricing) == ("claude-haiku-4-5-20251001", model.pricing)
    assert resolve_model("anthropic/claude-unlisted-9", config).pricing is None


@pytest.mark.parametrize(
    "spec", ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929"]
)
def test_a_retired_model_names_its_replacement(spec: str) -> None:
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "k"}, {})
    with pytest.raises(ConfigError) as err:
        resolve_model(choose_model(spec, {}, {}), config)
    assert str(err.value) == (
        f"model anthropic/{spec.removeprefix('anthropic/')} was retired on 2026-11-30 — "
        "use anthropic/claude-sonnet-5-5 instead"
    )


def test_a_retired_name_declared_in_settings_is_the_users_own() -> None:
    proxied = {"providers": {"box": {"models": {"claude-sonnet-4-5": {}}}}}
    assert choose_model("claude-sonnet-4-5", {}, proxied) == "box/claude-sonnet-4-5"
    settings = {"providers": {"anthropic": {"models": {"claude-sonnet-4-5": {}}}}}
    assert choose_model("claude-sonnet-4-5", {}, settings) == "anthropic/claude-sonnet-4-5"
    config = provider_config("anthropic", {"ANTHROPIC_API_KEY": "k"}, settings)
    assert resolve_model("anthropic/claude-sonnet-4-5", config).name == "claude-sonnet-4-5"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1/v1", "is not a URL (Invalid IPv6 URL)"),
        ("ftp://example.com/v1", "must be an http:// or https:// URL with a host"),
        ("http://127.0.0.1:99999/v1", "is not a URL (Port out of range 0-65535)"),
    ],
)
def test_a_base_url_that_is_no_http_url_is_a_configuration_error(
    tmp_path: Path, url: str, why: str
) -> None:
    project = Project.make(tmp_path)
    provider = {"api": "chat-completions", "base_url": url, "api_key": "sk-test"}
    project.settings({"model": "p/m", "providers": {"p": provider}})
    done = project.run("-p", "hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"auger: provider 'p': base URL {url!r} {why}\n"
