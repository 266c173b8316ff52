"""Claude Code's project files: `.claude/skills` (text, always), and under trust only,
`.mcp.json` servers and `.claude/settings.json` hooks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from auger.config.trust import TrustStore
from auger.extensions import claude_project
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import AfterToolCall, Notify
from extensions.test_mcp import ENV, runtime, wait_until
from support.runtime import collect

TIME = str(Path(sys.executable).parent / "mcp-server-time")
BLOCK_BASH = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}
        ]
    }
}


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    return root


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_mcp_json_servers_in_auger_shape(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(
        root / ".mcp.json",
        {
            "mcpServers": {
                "time": {"type": "stdio", "command": "t", "args": ["-x"], "env": {"A": "1"}},
                "web": {"type": "http", "url": "https://x.test/mcp", "headers": {"K": "v"}},
            }
        },
    )
    assert claude_project.mcp_servers(root) == {
        "time": {"command": "t", "args": ["-x"], "env": {"A": "1"}},
        "web": {"url": "https://x.test/mcp", "headers": {"K": "v"}},
    }


def test_hooks_of_both_settings_files_concatenate(tmp_path: Path) -> None:
    root = project(tmp_path)
    group = {"hooks": [{"type": "command", "command": "a"}]}
    write(root / ".claude" / "settings.json", {"hooks": {"Stop": [group]}})
    write(root / ".claude" / "settings.local.json", {"hooks": {"Stop": [group, group]}})
    assert claude_project.hooks(root) == {"Stop": [group, group, group]}


async def test_claude_skills_are_found_without_trust(tmp_path: Path) -> None:
    skill = project(tmp_path) / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: ship it\n---\nRun the deploy.\n")
    rt = runtime(tmp_path, ScriptedProvider())
    assert "skill:deploy" in rt.commands


def bash_turn() -> ScriptedProvider:
    return ScriptedProvider([Reply.of(Call("bash", {"command": "echo ran"})), Reply.of("ok")])


async def test_hooks_of_an_untrusted_project_do_not_run(tmp_path: Path) -> None:
    write(project(tmp_path) / ".claude" / "settings.json", BLOCK_BASH)
    rt = runtime(tmp_path, bash_turn())
    records = await collect(rt, "go")
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert after.result.content.strip() == "ran"
    [notice] = [r for r in records if isinstance(r, Notify)]
    assert notice.message.startswith(
        "Claude Code project files were not loaded (.claude/settings.json): this project is "
        "not trusted"
    )


async def test_hooks_of_a_trusted_project_run(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".claude" / "settings.json", BLOCK_BASH)
    TrustStore(tmp_path / "home").trust(root)
    rt = runtime(tmp_path, bash_turn())
    records = await collect(rt, "go")
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert after.result.error_type == "blocked" and "no" in after.result.content


@pytest.mark.slow
async def test_mcp_json_servers_start_only_when_trusted(tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / ".mcp.json", {"mcpServers": {"time": {"command": TIME}}})
    untrusted = runtime(tmp_path, ScriptedProvider([Reply.of("hi")]), env=ENV)
    records = await collect(untrusted, "hi")
    await untrusted.close()
    assert any(isinstance(r, Notify) and ".mcp.json" in r.message for r in records)
    assert not any(name.startswith("time__") for name in untrusted.tools)

    TrustStore(tmp_path / "home").trust(root)
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("hi")]), env=ENV)
    await collect(rt, "hi")
    await wait_until(lambda: "time__get_current_time" in rt.tools)
    await rt.close()
