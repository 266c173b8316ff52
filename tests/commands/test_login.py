"""`/login` and `/logout`: a key kept in auth.json (0600) that the session uses at once."""

from __future__ import annotations

import stat
from pathlib import Path

from auger.config.credentials import load_credentials
from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import CommandOutput, Notify
from support.hosts import Answering
from support.runtime import make_runtime
from support.server import FakeServer


async def said(rt, name: str, args: str = "") -> str:  # type: ignore[no-untyped-def]
    records = [r async for r in rt.run_command(name, args)]
    return "\n".join(
        r.text if isinstance(r, CommandOutput) else r.message
        for r in records
        if isinstance(r, CommandOutput | Notify)
    )


async def test_login_keeps_the_key_and_the_next_request_carries_it(
    tmp_path: Path, fake_server: FakeServer
) -> None:
    host = Answering(answers=["  sk-ant-test  "], capabilities=["ask"])
    env = {"HOME": str(tmp_path), "ANTHROPIC_BASE_URL": fake_server.url}
    rt = make_runtime(
        tmp_path, ScriptedProvider([Reply.of("hi")]), bundled=True, host=host, env=env
    )
    assert "Saved ANTHROPIC_API_KEY" in await said(rt, "login", "anthropic")
    auth = tmp_path / "home" / "auth.json"
    assert load_credentials(tmp_path / "home") == {"ANTHROPIC_API_KEY": "sk-ant-test"}
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert host.asked == ["ANTHROPIC_API_KEY for anthropic:"]
    await said(rt, "model", "anthropic/claude-haiku-4-5")
    assert rt.model.id == "anthropic/claude-haiku-4-5"
    await rt.ask("hello")  # the server answers 500 (nothing queued): only the request matters
    assert fake_server.requests[0].headers["x-api-key"] == "sk-ant-test"
    assert "ANTHROPIC_API_KEY" not in rt.env  # never handed to the commands tools run
    await rt.close()


async def test_logout_forgets_the_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    from auger.config.credentials import save_credential

    save_credential(home, "GROQ_API_KEY", "gsk-1")
    assert await said(rt, "logout", "groq") == "Removed GROQ_API_KEY."
    assert load_credentials(home) == {}
    assert await said(rt, "logout", "groq") == "No GROQ_API_KEY was saved."


async def test_login_without_a_host_that_asks_says_how(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    out = await said(rt, "login", "openai")
    assert "auger login PROVIDER" in out
    assert not (tmp_path / "home" / "auth.json").exists()


async def test_an_unknown_provider_lists_the_known_ones(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), bundled=True)
    assert "unknown provider 'nope'" in await said(rt, "login", "nope")
