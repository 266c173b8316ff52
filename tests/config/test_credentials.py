"""`auth.json`: keys saved with mode 0600, read after the environment, refused when exposed."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from auger.config.credentials import (
    load_credentials,
    load_signin,
    remove_credential,
    remove_signin,
    save_credential,
    save_signin,
    signed_in,
    with_credentials,
)
from support.cli import Project


def test_a_saved_key_is_private_and_read_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = save_credential(home, "ANTHROPIC_API_KEY", "sk-ant")
    save_credential(home, "OPENAI_API_KEY", "sk-oai")
    assert path == home / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {
        "ANTHROPIC_API_KEY": "sk-ant",
        "OPENAI_API_KEY": "sk-oai",
    }
    assert load_credentials(home) == {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"}
    assert sorted(p.name for p in home.iterdir()) == ["auth.json"]  # no temp file left


def test_saving_again_replaces_the_key(tmp_path: Path) -> None:
    save_credential(tmp_path, "K", "old")
    save_credential(tmp_path, "K", "new")
    assert load_credentials(tmp_path) == {"K": "new"}


def test_the_environment_wins_over_the_file(tmp_path: Path) -> None:
    save_credential(tmp_path, "A_KEY", "from-file")
    save_credential(tmp_path, "B_KEY", "from-file")
    env = with_credentials({"A_KEY": "from-env", "B_KEY": "", "PATH": "/bin"}, tmp_path)
    assert env == {"A_KEY": "from-env", "B_KEY": "from-file", "PATH": "/bin"}


def test_a_file_others_can_read_is_not_used(tmp_path: Path) -> None:
    save_credential(tmp_path, "K", "secret")
    os.chmod(tmp_path / "auth.json", 0o644)
    warnings: list[str] = []
    assert load_credentials(tmp_path, warnings.append) == {}
    assert len(warnings) == 1
    assert "readable by others (mode 644)" in warnings[0] and "chmod 600" in warnings[0]
    assert "secret" not in warnings[0]
    assert with_credentials({}, tmp_path) == {}


def test_a_missing_file_is_no_keys(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert load_credentials(tmp_path / "nowhere", warnings.append) == {}
    assert warnings == []


def test_a_malformed_file_warns_and_gives_no_keys(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text('{"K": "v",}')
    os.chmod(path, 0o600)
    warnings: list[str] = []
    assert load_credentials(tmp_path, warnings.append) == {}
    assert "auth.json line 1" in warnings[0]
    path.write_text('["K"]')
    assert load_credentials(tmp_path, warnings.append) == {}
    assert "must hold a JSON object" in warnings[1]


def test_values_that_are_not_strings_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"K": "v", "N": 3, "E": "", "L": ["x"]}))
    os.chmod(path, 0o600)
    assert load_credentials(tmp_path) == {"K": "v"}


def test_keys_and_sign_ins_share_the_file_without_touching_each_other(tmp_path: Path) -> None:
    save_signin(tmp_path, "chatgpt", {"access": "a", "refresh": "r"})
    save_credential(tmp_path, "GROQ_API_KEY", "gsk-1")
    remove_credential(tmp_path, "GROQ_API_KEY")
    assert load_signin(tmp_path, "chatgpt") == {"access": "a", "refresh": "r"}
    assert load_credentials(tmp_path) == {}  # a sign-in is never read as a key
    assert not remove_credential(tmp_path, "signin")
    assert signed_in(tmp_path) == ["chatgpt"]
    assert remove_signin(tmp_path, "chatgpt") and signed_in(tmp_path) == []
    assert stat.S_IMODE((tmp_path / "auth.json").stat().st_mode) == 0o600


def test_a_sign_in_in_a_file_others_can_read_is_not_used(tmp_path: Path) -> None:
    save_signin(tmp_path, "copilot", {"access": "a"})
    (tmp_path / "auth.json").chmod(0o644)
    warnings: list[str] = []
    assert load_signin(tmp_path, "copilot", warnings.append) is None
    assert "chmod 600" in warnings[0]


@pytest.mark.slow
def test_a_missing_key_says_auth_json_was_ignored_and_why(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    provider = {"api": "messages", "base_url": "http://127.0.0.1:9", "api_key_env": "P_KEY"}
    project.settings({"model": "p/m", "providers": {"p": provider}})
    auth = project.home / "auth.json"
    auth.write_text(json.dumps({"P_KEY": "sk-test"}))
    auth.chmod(0o644)
    done = project.run("-p", "hi")
    assert done.returncode == 2
    assert done.stderr == (
        "auger: no API key for p — set P_KEY; ~/auger-home/auth.json is readable by others "
        "(mode 644), so its keys are not used — run: chmod 600 ~/auger-home/auth.json\n"
    )
