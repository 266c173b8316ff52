"""`auger login chatgpt|copilot` and signed-in tool loops through `auger -p --json`, against
local stand-ins of the sign-in endpoints and the models behind them (tests/support/signin.py).

ChatGPT's flows: https://developers.openai.com/codex/auth; GitHub's device flow:
https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#device-flow
"""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.signin import ACCOUNT, AuthServer, browser_env
from support.strict import Step

LOOP = [
    Step(tool="ls", arguments='{"path": "."}'),
    Step(tool="ls", arguments='{"path": "."}'),
    Step("all done"),
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    p = Project.make(tmp_path)
    p.settings({"permissions": {"mode": "auto"}})
    (p.root / "notes.txt").write_text("hi\n")
    return p


@pytest.fixture
def chatgpt() -> Iterator[AuthServer]:
    with AuthServer("responses", list(LOOP)) as server:
        yield server


@pytest.fixture
def copilot() -> Iterator[AuthServer]:
    with AuthServer("chat-completions", list(LOOP)) as server:
        yield server


def _use(project: Project, server: AuthServer) -> None:
    project.env |= server.env()


def _auth(project: Project) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project.home / "auth.json").read_text())
    return data


def _seed(project: Project, entry: dict[str, Any]) -> None:
    path = project.home / "auth.json"
    path.write_text(json.dumps({"signin": {"chatgpt": entry}}))
    path.chmod(0o600)


def _run_loop(project: Project, model: str) -> Any:
    return project.run("-p", "--json", "--model", model, "list the files")


def _ends(result: Any) -> list[dict[str, Any]]:
    return [r for r in json_lines(result.stdout) if r["type"] == "turn_end"]


def test_chatgpt_browser_sign_in_verifies_pkce_and_keeps_the_tokens_0600(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    project.env |= browser_env()
    result = project.run("login", "chatgpt", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "signed in to chatgpt as ada@example.com" in result.stdout
    assert "/oauth/authorize?" in result.stdout  # the URL, for a browser elsewhere
    assert chatgpt.violations == []
    assert chatgpt.paths() == ["/oauth/authorize", "/oauth/token", "/backend-api/codex/models"]
    entry = _auth(project)["signin"]["chatgpt"]
    assert entry["account_id"] == ACCOUNT and entry["refresh"].startswith("rt-")
    assert entry["models"] == {"gpt-plan": {"context_window": 272000}, "gpt-plan-mini": {}}
    assert stat.S_IMODE((project.home / "auth.json").stat().st_mode) == 0o600


def test_a_signed_in_tool_loop_carries_the_token_and_the_account(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    access, refresh = chatgpt.tokens()
    _seed(
        project,
        {
            "access": access,
            "refresh": refresh,
            "expires": time.time() + 3600,
            "account_id": ACCOUNT,
        },
    )
    result = _run_loop(project, "chatgpt/gpt-5.5")
    assert result.returncode == 0, result.stderr
    assert chatgpt.violations == [] and chatgpt.model.violations == []
    calls = [h for _, path, h, _ in chatgpt.seen if path.endswith("/responses")]
    assert len(calls) == 3
    assert all(h["authorization"] == f"Bearer {access}" for h in calls)
    assert all(h["originator"] == "auger" for h in calls)
    assert _ends(result)[-1]["stop_reason"] == "completed"


def test_chatgpt_device_code_sign_in_polls_until_the_code_is_entered(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    result = project.run("login", "chatgpt", "--device", timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"{chatgpt.url}/codex/device" in result.stdout and "ABCD-1234" in result.stdout
    assert len(chatgpt.polls) == 3  # two "not yet", then the code
    assert chatgpt.violations == []
    assert _auth(project)["signin"]["chatgpt"]["account_id"] == ACCOUNT


def test_a_token_that_expires_mid_session_is_renewed_and_the_loop_goes_on(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    chatgpt.access_uses = 1  # the server lets each token through once, then says 401
    access, refresh = chatgpt.tokens()
    _seed(
        project,
        {
            "access": access,
            "refresh": refresh,
            "expires": time.time() + 3600,
            "account_id": ACCOUNT,
        },
    )
    result = _run_loop(project, "chatgpt/gpt-5.5")
    assert result.returncode == 0, result.stderr
    assert _ends(result)[-1]["stop_reason"] == "completed"
    assert chatgpt.paths().count("/oauth/token") == 2  # steps 2 and 3 each renewed once
    kept = _auth(project)["signin"]["chatgpt"]
    assert kept["access"] != access and kept["refresh"] != refresh  # rotated, written back


def test_an_expired_token_is_refreshed_silently_before_the_first_request(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    access, refresh = chatgpt.tokens()
    _seed(
        project,
        {"access": access, "refresh": refresh, "expires": time.time() - 10, "account_id": ACCOUNT},
    )
    result = _run_loop(project, "chatgpt/gpt-5.5")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert chatgpt.paths()[0] == "/oauth/token"
    calls = [h for _, path, h, _ in chatgpt.seen if path.endswith("/responses")]
    assert calls and all(h["authorization"] != f"Bearer {access}" for h in calls)


def test_a_revoked_refresh_token_is_one_line_telling_to_sign_in_again(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    access, refresh = chatgpt.tokens()
    chatgpt.revoke()
    _seed(
        project,
        {"access": access, "refresh": refresh, "expires": time.time() - 10, "account_id": ACCOUNT},
    )
    result = _run_loop(project, "chatgpt/gpt-5.5")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "auger login chatgpt" in lines[0] and "Traceback" not in result.stderr
    assert not any(p.endswith("/responses") for p in chatgpt.paths())


@pytest.mark.slow
def test_copilot_device_flow_honours_slow_down_and_caches_the_seat_models(
    project: Project, copilot: AuthServer
) -> None:
    _use(project, copilot)
    copilot.slow_down = True
    copilot.device_pending = 1
    result = project.run("login", "copilot", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "WXYZ-9876" in result.stdout and "1 models on this seat" in result.stdout
    assert copilot.violations == []
    # after slow_down (interval 1 s) the next poll waits at least that long
    assert copilot.polls[1] - copilot.polls[0] >= 1.0
    entry = _auth(project)["signin"]["copilot"]
    assert entry["refresh"].startswith("ghu_") and entry["access"].startswith("tid=")
    assert entry["api"] == copilot.url + "/copilot"
    assert entry["models"] == {"seat-model": {"context_window": 64000, "max_output": 8000}}


def test_a_copilot_tool_loop_sends_the_identity_and_who_initiated_each_step(
    project: Project, copilot: AuthServer
) -> None:
    _use(project, copilot)
    copilot.device_pending = 0
    assert project.run("login", "copilot", timeout=60).returncode == 0
    result = _run_loop(project, "copilot/seat-model")
    assert result.returncode == 0, result.stderr
    assert copilot.violations == [] and copilot.model.violations == []
    calls = [h for _, path, h, _ in copilot.seen if path == "/copilot/chat/completions"]
    assert [h["x-initiator"] for h in calls] == ["user", "agent", "agent"]
    assert all(h["authorization"].startswith("Bearer tid=") for h in calls)
    bodies = [b for _, path, _, b in copilot.seen if path == "/copilot/chat/completions"]
    assert {b["max_tokens"] for b in bodies} == {8000}  # the seat's limit, not a default


def test_logout_revokes_the_sign_in_and_keeps_the_keys(
    project: Project, chatgpt: AuthServer
) -> None:
    _use(project, chatgpt)
    access, refresh = chatgpt.tokens()
    path = project.home / "auth.json"
    path.write_text(
        json.dumps(
            {"GROQ_API_KEY": "gsk-1", "signin": {"chatgpt": {"access": access, "refresh": refresh}}}
        )
    )
    path.chmod(0o600)
    result = project.run("logout", "chatgpt")
    assert result.returncode == 0
    assert "signed out of chatgpt: OpenAI revoked its tokens" in result.stdout
    assert not chatgpt.refresh_valid(refresh) and chatgpt.violations == []
    assert _auth(project) == {"GROQ_API_KEY": "gsk-1"}


def test_login_without_a_provider_lists_the_choices_and_the_sign_in_state(
    project: Project,
) -> None:
    path = project.home / "auth.json"
    path.write_text(json.dumps({"signin": {"copilot": {"access": "a"}}}))
    path.chmod(0o600)
    result = project.run("login")
    assert result.returncode == 0
    assert "chatgpt      not signed in" in result.stdout
    assert "copilot      signed in" in result.stdout
    assert "Claude Free/Pro/Max sign-in is not offered" in result.stdout


def test_the_login_command_signs_in_from_a_session(project: Project, chatgpt: AuthServer) -> None:
    _use(project, chatgpt)
    project.script([{"text": "unused"}])
    result = project.run("-p", "/login chatgpt --device", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ABCD-1234" in result.stdout and "Signed in to chatgpt" in result.stdout
    assert _auth(project)["signin"]["chatgpt"]["account_id"] == ACCOUNT


def test_models_shows_each_sign_in_and_the_models_its_account_offers(project: Project) -> None:
    path = project.home / "auth.json"
    seat = {"access": "a", "models": {"seat-model": {"context_window": 64000}}}
    path.write_text(json.dumps({"signin": {"copilot": seat}}))
    path.chmod(0o600)
    result = project.run("models")
    assert result.returncode == 0, result.stderr
    assert "chatgpt: not signed in — auger login chatgpt" in result.stdout
    assert "copilot: signed in; 1 models on this account" in result.stdout
    assert "copilot/seat-model" in result.stdout and "64000" in result.stdout


def test_a_revoked_github_token_stops_copilot_with_one_line(
    project: Project, copilot: AuthServer
) -> None:
    _use(project, copilot)
    copilot.device_pending = 0
    assert project.run("login", "copilot", timeout=60).returncode == 0
    data = _auth(project)
    data["signin"]["copilot"]["expires"] = time.time() - 5  # the Copilot token ran out
    (project.home / "auth.json").write_text(json.dumps(data))
    copilot.revoke()  # and the GitHub token was revoked meanwhile
    result = _run_loop(project, "copilot/seat-model")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "auger login copilot" in result.stderr
    assert "/copilot/chat/completions" not in copilot.paths()


def test_device_code_sign_in_that_is_not_enabled_says_how_to_enable_it(
    project: Project, chatgpt: AuthServer
) -> None:
    project.env |= chatgpt.env() | {"CHATGPT_AUTH_BASE_URL": chatgpt.url + "/elsewhere"}
    result = project.run("login", "chatgpt", "--device", timeout=60)
    assert result.returncode == 2
    assert "device-code sign-in is not enabled" in result.stderr
    assert not (project.home / "auth.json").exists()
