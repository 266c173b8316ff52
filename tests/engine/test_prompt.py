"""The small-model lines of the system prompt: on for a local server (its text-call fallback is
on), and by `compat.small_model_guidance` for any Chat Completions provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from auger.engine.prompt import SMALL_MODEL
from auger.llm.local import LocalProvider
from auger.llm.openai_chat import OpenAIChatProvider
from auger.tools.builtin import extensions
from support.runtime import make_runtime


def _prompt(tmp_path: Path, provider: Any) -> str:
    rt = make_runtime(tmp_path, provider, extensions=[e for _, e in extensions()])
    return rt.system_prompt()


@pytest.mark.parametrize(
    ("compat", "told"),
    [({}, False), ({"tool_call_fallback": True}, True),
     ({"small_model_guidance": True}, True),
     ({"tool_call_fallback": True, "small_model_guidance": False}, False)],
)  # fmt: skip
def test_a_chat_provider_is_told_when_it_serves_a_small_model(tmp_path, compat, told) -> None:
    provider = OpenAIChatProvider("p", "https://api.example.com/v1", "k", compat=compat)
    assert (SMALL_MODEL in _prompt(tmp_path, provider)) is told


def test_the_in_process_local_provider_is_told(tmp_path: Path) -> None:
    assert SMALL_MODEL in _prompt(tmp_path, LocalProvider("local"))


def test_no_tools_means_no_guidance_to_call_them(tmp_path: Path) -> None:
    provider = OpenAIChatProvider(
        "p", "http://127.0.0.1:1/v1", None, compat={"tool_call_fallback": True}
    )
    rt = make_runtime(tmp_path, provider)
    assert SMALL_MODEL not in rt.system_prompt()
    assert "No tools are available" in rt.system_prompt()
