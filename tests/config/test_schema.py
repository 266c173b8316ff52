"""Settings checked against one schema: wrong types, unknown keys, a BOM, deep nesting, trust."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as fuzzing
from hypothesis import strategies as st

from auger.config.errors import ConfigError
from auger.config.schema import KEYS, key_for, merge, untrusted_keys, validate
from auger.config.settings import load, trust_notice
from auger.config.trust import TrustStore
from auger.runtime import Runtime
from support.cli import Project


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        (
            {"providers": {"x": {"base_url": 8080}}},
            'settings.json: "providers.x.base_url" must be a string, not an integer (8080)',
        ),
        ({"models": ["a"], "model": ["a/b"]}, '"model" must be a string, not a list'),
        ({"retry": {"attempts": "three"}}, '"retry.attempts" must be an integer, not a string'),
        ({"retry": {"attempts": True}}, '"retry.attempts" must be an integer, not a boolean'),
        ({"compaction": {"reserve_tokens": "lots"}}, '"compaction.reserve_tokens" must be an'),
        ({"permissions": {"mode": "yolo"}}, '"permissions.mode" must be one of ask, accept-edits'),
        ({"permissions": {"deny": "bash"}}, '"permissions.deny" must be a list of strings'),
        ({"hooks": []}, '"hooks" must be an object, not a list'),
        (
            {"providers": {"p": {"models": {"m": {"context_window": "big"}}}}},
            '"providers.p.models.m.context_window" must be an integer, not a string ("big")',
        ),
        (
            {"providers": {"p": {"models": {"m": {"max_output": -5}}}}},
            '"providers.p.models.m.max_output" must be at least 1, not an integer (-5)',
        ),
        (
            {"providers": {"p": {"models": {"m": {"input": float("nan")}}}}},
            '"providers.p.models.m.input" must be a number, not a number (NaN)',
        ),
        (
            {"providers": {"p": {"models": {"m": {"long_context": {"above": "1M"}}}}}},
            '"providers.p.models.m.long_context.above" must be an integer',
        ),
        ({"providers": {"p": {"models": {"m": []}}}}, '"providers.p.models.m" must be an object'),
        ({"providers": {"p": {"models": {"m": {"thinking": "hard"}}}}}, "must be one of budget"),
    ],
)
def test_a_wrong_type_is_one_line_naming_the_file_key_and_type(
    settings: dict[str, Any], line: str
) -> None:
    with pytest.raises(ConfigError) as err:
        validate(settings, "settings.json")
    assert line in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith("settings.json: ")


def test_unknown_keys_are_warned_about_with_the_closest_known_key() -> None:
    warnings = validate(
        {"retry": {"atempts": 3}, "modle": "a/b", "my_extension": {"any": 1}, "stray": 1}, "s.json"
    )
    assert warnings == [
        's.json: unknown setting "retry.atempts" — did you mean "retry.attempts"?',
        's.json: unknown setting "modle" — did you mean "model"?',
        's.json: unknown setting "stray"',
    ]  # an unknown top-level object is an extension's own namespace


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"model": "a/b"}).encode()
    )
    assert load(tmp_path, tmp_path / "project").settings == {"model": "a/b"}


def test_deep_nesting_and_bad_utf8_are_config_errors(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    with pytest.raises(ConfigError, match="nested too deeply"):
        load(tmp_path, tmp_path / "project")
    (tmp_path / "settings.json").write_bytes(b'{"model": "caf\xe9"}')
    with pytest.raises(ConfigError, match="is not UTF-8"):
        load(tmp_path, tmp_path / "project")


def test_every_key_is_classified_and_only_inert_ones_survive_distrust() -> None:
    inert = {k.path.split(".")[0] for k in KEYS if k.trust == "inert"}
    assert inert == {"model", "retry", "compaction", "http"}
    project = {
        "model": "a/b",
        "retry": {"attempts": 2, "surprise": 1},
        "hooks": {},
        "env": {"X": "1"},
        "providers": {},
        "mcp": {},
        "extensions": {},
        "permissions": {},
        "sandbox": {},
        "someone_elses": {},
    }
    assert sorted(".".join(p) for p in untrusted_keys(project)) == [
        "env",
        "extensions",
        "hooks",
        "mcp",
        "permissions",
        "providers",
        "retry.surprise",
        "sandbox",
        "someone_elses",
    ]


def test_merging_concatenates_hooks_and_unions_rules() -> None:
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}
    other = {"hooks": [{"type": "command", "command": "other"}]}
    user = {"hooks": {"PreToolUse": [hook]}, "permissions": {"deny": ["Bash(rm:*)"]}}
    project = {"hooks": {"PreToolUse": [other]}, "permissions": {"deny": ["Read(.env)"]}}
    assert merge(user, project) == {
        "hooks": {"PreToolUse": [hook, other]},
        "permissions": {"deny": ["Bash(rm:*)", "Read(.env)"]},
    }
    assert merge(user, {"hooks": {"PreToolUse": []}, "permissions": {"deny": []}}) == user


def test_a_deep_key_path_is_never_looked_up_exhaustively() -> None:
    assert key_for(tuple("abcdefghijklmnopqrstuvwxyz")) is None


@pytest.mark.slow
def test_a_wrong_type_exits_2_with_one_line(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script([{"text": "never"}], retry={"attempts": "three"})
    result = project.run("-p", "hi")
    assert result.returncode == 2
    assert result.stderr == (
        'auger: ~/auger-home/settings.json: "retry.attempts" must be an integer, '
        'not a string ("three")\n'
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("big", 'must be an integer, not a string ("big")'),
        (-5, "must be at least 1, not an integer (-5)"),
    ],
)
def test_a_bad_number_in_a_models_entry_exits_2_with_one_line(
    tmp_path: Path, value: Any, expected: str
) -> None:
    project = Project.make(tmp_path)
    project.script(["never"])
    settings = json.loads((project.home / "settings.json").read_text())
    settings["providers"]["s"]["models"] = {"test": {"context_window": value}}
    project.settings(settings)
    result = project.run("-p", "hi")
    assert result.returncode == 2
    assert result.stderr == (
        f'auger: ~/auger-home/settings.json: "providers.s.models.test.context_window" {expected}\n'
    )


def test_settings_given_to_a_runtime_obey_the_schema(tmp_path: Path) -> None:
    bad = {"providers": {"x": {"api": "scripted", "models": {"m": {"context_window": "big"}}}}}
    with pytest.raises(ConfigError, match='context_window" must be an integer'):
        Runtime("x/m", cwd=tmp_path, home=tmp_path, env={}, settings=bad)


def test_an_unknown_key_is_a_warning_in_the_stream(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script([{"text": "ok"}], compaction={"reserve_token": 5})
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    notice = (
        '~/auger-home/settings.json: unknown setting "compaction.reserve_token" — '
        'did you mean "compaction.reserve_tokens"?'
    )
    assert {"type": "notify", "message": notice, "level": "warning"} in [
        json.loads(line) for line in result.stdout.splitlines()
    ]


# every name the schema knows, at any level, so the fuzzing reaches deep keys
NAMES = sorted({part for key in KEYS for part in key.path.split(".") if part != "*"})
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@pytest.mark.slow
@fuzzing(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user=st.dictionaries(st.sampled_from(NAMES), JSON, max_size=5), project=JSON)
def test_any_settings_files_load_or_fail_with_one_line(
    tmp_path_factory: pytest.TempPathFactory, user: dict[str, Any], project: Any
) -> None:
    home = tmp_path_factory.mktemp("home")
    cwd = tmp_path_factory.mktemp("project")
    (home / "settings.json").write_text(json.dumps(user))
    (cwd / ".auger").mkdir()
    (cwd / ".auger" / "settings.json").write_text(json.dumps(project))
    for trusted in (False, True):
        if trusted:
            TrustStore(home).trust(cwd)
        try:
            loaded = load(home, cwd)
        except ConfigError as exc:
            assert "\n" not in str(exc)
            continue
        assert isinstance(loaded.settings, dict)
        assert all("\n" not in w for w in loaded.warnings)
        assert "\n" not in trust_notice(cwd, loaded.ignored)
        if not trusted and isinstance(project, dict):
            kept = {k for k in project if k in loaded.settings and k not in user}
            assert kept <= {"model", "retry", "compaction", "http"}
