"""The `auger` command: version, usage errors, and bad input that must fail cleanly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from auger import __version__
from support.cli import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_version(project: Project) -> None:
    result = project.run("--version")
    assert (result.returncode, result.stdout) == (0, f"auger {__version__}\n")


def test_unknown_flag_prints_a_reason_and_the_usage(project: Project) -> None:
    result = project.run("-p", "--frobnicate", "hi")
    assert result.returncode == 2
    reason, usage = result.stderr.strip().splitlines()
    assert reason == "auger: unrecognized arguments: --frobnicate"
    assert usage.startswith("usage: auger")


def test_unknown_provider(project: Project) -> None:
    result = project.run("-p", "--model", "nowhere/model", "hi")
    assert result.returncode == 2
    assert "unknown provider 'nowhere'" in one_line_error(result)


def test_malformed_settings_names_file_and_line(project: Project) -> None:
    (project.home / "settings.json").write_text('{\n  "model": "anthropic/x",\n}\n')
    result = project.run("-p", "hi")
    assert result.returncode == 2
    line = one_line_error(result)
    assert "settings.json line 3" in line
    assert (project.home / "settings.json").read_text() == '{\n  "model": "anthropic/x",\n}\n'


def test_model_without_provider(project: Project) -> None:
    result = project.run("-p", "--model", "no-such-model", "hi")
    assert result.returncode == 2
    assert "PROVIDER/NAME" in one_line_error(result)


def test_a_bare_catalog_name_finds_its_provider(project: Project) -> None:
    result = project.run("-p", "--model", "claude-sonnet-5-5", "hi")
    assert result.returncode == 2
    assert "set ANTHROPIC_API_KEY" in one_line_error(result)


def test_a_retired_model_names_its_replacement(project: Project) -> None:
    result = project.run("-p", "--model", "claude-sonnet-4-5", "hi")
    assert result.returncode == 2
    assert one_line_error(result).endswith(
        "claude-sonnet-4-5 was retired on 2026-11-30 — use anthropic/claude-sonnet-5-5 instead"
    )


def test_an_ambiguous_model_lists_the_candidates(project: Project) -> None:
    result = project.run("-p", "--model", "mini", "hi")
    assert result.returncode == 2
    assert "ambiguous" in one_line_error(result) and "openai/gpt-5-mini" in result.stderr


def test_no_model_at_all(project: Project) -> None:
    result = project.run("-p", "hi")
    assert result.returncode == 2
    assert "no model chosen" in one_line_error(result)


def test_empty_prompt(project: Project) -> None:
    project.script(["unused"])
    result = project.run("-p", stdin="  \n")
    assert result.returncode == 2
    assert "empty prompt" in one_line_error(result)


def test_missing_key_names_the_variable(project: Project) -> None:
    result = project.run("-p", "--model", "anthropic/claude-sonnet-5-5", "hi")
    assert result.returncode == 2
    assert "set ANTHROPIC_API_KEY" in one_line_error(result)


def test_prompt_from_stdin(project: Project) -> None:
    project.script([{"text": "from stdin"}])
    result = project.run("-p", stdin="what is this?\n")
    assert (result.returncode, result.stdout) == (0, "from stdin\n")


def test_no_tools_flag_sends_no_tools(project: Project) -> None:
    project.script([{"text": "x"}])
    result = project.run("-p", "--no-tools", "--json", "hi")
    assert result.returncode == 0, result.stderr


def test_import_auger_imports_no_provider_ui_or_mcp_library() -> None:
    code = (
        "import sys, auger; auger.Runtime; auger.records; "
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "{'httpx2', 'httpcore2', 'anyio', 'rich', 'prompt_toolkit', 'mcp', 'acp', "
        "'anthropic', 'openai', 'auger.llm.anthropic'}]; "
        "mine = [m for m in sys.modules if m.startswith('auger.llm.') and m.split('.')[-1] in "
        "('anthropic', 'openai_responses', 'openai_chat', 'http')]; "
        "print(heavy + mine)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


def test_version_imports_nothing_but_the_version() -> None:
    code = (
        "import sys; sys.argv = ['auger', '--version']; from auger.cli import main; main(); "
        "print(sorted(m for m in sys.modules if m.startswith('auger')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # `auger._lazy`: the public names' import-at-first-use, importing nothing itself
    expected = "['auger', 'auger._lazy', 'auger._version', 'auger.cli']"
    assert result.stdout.splitlines()[-1] == expected
