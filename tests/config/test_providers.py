"""The text-call fallback is on by default for a Chat Completions server the user runs."""

from __future__ import annotations

import pytest

from auger.config.models import provider_config


def _compat(base_url: str, api: str = "chat-completions", **compat: object) -> dict[str, object]:
    own: dict[str, object] = {"api": api, "base_url": base_url}
    if compat:
        own["compat"] = compat
    return provider_config("mine", {}, {"providers": {"mine": own}}).compat


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1",
     "http://10.0.0.7:8000/v1", "http://192.168.1.20:1234/v1", "http://172.16.4.2/v1"],
)  # fmt: skip
def test_a_declared_server_on_this_machine_or_network_gets_the_fallback(url: str) -> None:
    assert _compat(url) == {"tool_call_fallback": True}


@pytest.mark.parametrize(
    "url", ["https://api.example.com/v1", "http://8.8.8.8/v1", "http://not a url"]
)
def test_a_server_elsewhere_does_not(url: str) -> None:
    assert _compat(url) == {}


def test_settings_that_turn_it_off_are_kept() -> None:
    assert _compat("http://127.0.0.1:8080/v1", tool_call_fallback=False) == {
        "tool_call_fallback": False
    }


def test_other_wire_formats_are_left_alone() -> None:
    assert _compat("http://127.0.0.1:8080", api="messages") == {}


def test_a_builtin_provider_moved_to_a_local_url_gets_it() -> None:
    env = {"OPENROUTER_BASE_URL": "http://127.0.0.1:9999/v1", "OPENROUTER_API_KEY": "k"}
    assert provider_config("openrouter", env, {}).compat == {"tool_call_fallback": True}
    assert provider_config("openrouter", {"OPENROUTER_API_KEY": "k"}, {}).compat == {}
