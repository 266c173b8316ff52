"""A real GGUF through `auger -p --model local/…`: llama.cpp in-process, no key, no network.

The model is Qwen2.5-Coder 0.5B Instruct, shipped split across six registry packages
(`auger[local-test]`); the parts join, in order, into one GGUF. Its chat template has no tool
format, so it writes its calls as JSON text: the `tool_call_fallback` is what makes them calls.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.cli import Project, json_lines
from support.gguf import join, missing

# the model is joined once and run by one llama.cpp server at a time: one xdist worker
pytestmark = pytest.mark.xdist_group("gguf")


@pytest.fixture(scope="module")
def gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test model, joined from its packages into a temp file."""
    if absent := missing():
        message = f"pip install -e '.[local-test]' (missing: {', '.join(absent)})"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs them: a skip there would hide a broken install
        pytest.skip(message)
    return join(tmp_path_factory.mktemp("model"))


def project(tmp_path: Path, gguf: Path) -> Project:
    """A project whose local model samples cooler than llama.cpp's 0.8 (greedy decoding makes
    a model this small repeat itself) and stops at 512 tokens."""
    made = Project.make(tmp_path)
    local = {"compat": {"temperature": 0.3, "seed": 7}, "models": {str(gguf): {"max_output": 512}}}
    made.settings({"providers": {"local": local}})
    return made


@pytest.mark.slow
def test_a_streamed_reply_from_a_local_gguf(tmp_path: Path, gguf: Path) -> None:
    result = project(tmp_path, gguf).run(
        "-p", "--json", "--no-save", "--no-tools", "--model", f"local/{gguf}",
        "Say hello in one short sentence.",
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    notices = [r["message"] for r in records if r["type"] == "notify"]
    assert notices[0].startswith("loading qwen2.5-coder-0.5b-instruct.gguf with llama.cpp")
    assert sum(r["type"] == "text_delta" for r in records) >= 2  # streamed, not in one piece
    assert records[-1]["type"] == "turn_end" and records[-1]["text"].strip()


@pytest.mark.slow
def test_a_tool_call_round_trip_with_a_local_gguf(tmp_path: Path, gguf: Path) -> None:
    local = project(tmp_path, gguf)
    (local.root / "notes.txt").write_text("The secret word is pineapple.\n")
    result = local.run(
        "-p", "--json", "--no-save", "--tools", "read", "--max-steps", "2",
        "--model", f"local/{gguf}",
        "Read the file notes.txt and tell me the secret word.",
        timeout=300,
    )  # fmt: skip
    assert result.returncode in (0, 3), result.stderr  # 3: the model called again, or rambled
    records = json_lines(result.stdout)
    calls = [r for r in records if r["type"] == "tool_call_done"]
    assert calls and calls[0]["name"] == "read"
    after = next(r for r in records if r["type"] == "after_tool_call")
    assert "pineapple" in after["result"]["content"]
    # the result went back to the model: a second response followed it
    assert sum(r["type"] == "token_usage_done" for r in records) == 2
    assert records[-1]["stop_reason"] in ("completed", "max_steps", "length")


@pytest.mark.slow
async def test_the_server_listens_on_loopback_and_stops_on_close(gguf: Path) -> None:
    import socket
    from urllib.parse import urlparse

    from auger.llm.local import LocalProvider
    from auger.llm.messages import UserMessage
    from auger.llm.provider import Model, PassThrough, Request

    provider = LocalProvider("local", {"threads": 2})
    model = Model("local", str(gguf), "llamacpp", context_window=1024, max_output=4)
    request = Request(model, "", (UserMessage.of("hi"),))
    try:
        async for _ in provider.stream(request, PassThrough()):
            pass
        url = urlparse(provider._served.base_url)  # type: ignore[union-attr]
    finally:
        await provider.aclose()
    assert url.hostname == "127.0.0.1"
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", url.port or 0))
