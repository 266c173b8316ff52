"""SPEC §6 through `auger -p --json` in a real project directory: modes, rules, records, the
headless deny, "always allow", MCP tools gated like any other."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from auger.records import PermissionRequest
from auger.runtime import Runtime
from support.cli import Project, json_lines

pytestmark = pytest.mark.slow

TOOL_EXTENSION = '''
def word_count(path: str) -> str:
    """Count the words of a file."""
    return "counted"

def extension(g):
    g.tool(word_count)
'''


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project.make(tmp_path)
    (made.root / "tools.py").write_text(TOOL_EXTENSION)
    (made.root / "a.txt").write_text("one two\n")
    return made


def run(project: Project, *args: str, code: int = 0) -> list[dict[str, Any]]:
    result = project.run("-p", "--json", "--extension", "tools.py", *args, "go")
    assert result.returncode == code, result.stderr
    return json_lines(result.stdout)


def told(records: list[dict[str, Any]]) -> dict[str, str]:
    return {r["call_id"]: r["result"]["content"] for r in records if r["type"] == "after_tool_call"}


def of(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == kind]


def calls(project: Project) -> list[dict[str, Any]]:
    """One call of each tool class (SPEC §6's columns)."""
    outside = str(project.root.parent / "outside.txt")
    parts = [
        {"tool": "read", "args": {"path": "a.txt"}, "id": "read"},
        {"tool": "write", "args": {"path": "new.txt", "content": "x"}, "id": "inside"},
        {"tool": "write", "args": {"path": outside, "content": "x"}, "id": "outside"},
        {"tool": "bash", "args": {"command": "touch ran"}, "id": "bash"},
        {"tool": "word_count", "args": {"path": "a.txt"}, "id": "extension"},
    ]
    return [{"parts": parts}, {"text": "done"}]


def needs(tool: str, rule: str, mode: str) -> str:
    allow = f"--allow '{rule}'"
    return f"ERROR: {tool} needs permission — allow it with {allow} or --permission-mode {mode}"


def test_ask_runs_reads_and_asks_for_the_rest(project: Project) -> None:
    project.script(calls(project), permissions={"mode": "ask"})
    records = run(project, "--sandbox", "off")
    got = told(records)
    outside = project.root.parent / "outside.txt"
    assert got["read"].endswith("1\tone two")
    assert got["inside"] == needs("write", "write(./new.txt)", "accept-edits")
    assert got["outside"] == needs("write", f"write(/{outside})", "auto")
    assert got["bash"] == needs("bash", "bash(touch ran)", "auto")
    assert got["extension"] == needs("word_count", "word_count", "auto")
    requests = of(records, "permission_request")
    assert [r["call_id"] for r in requests] == ["inside", "outside", "bash", "extension"]
    assert requests[2] == {
        "type": "permission_request",
        "call_id": "bash",
        "tool": "bash",
        "args": {"command": "touch ran"},
        "title": "Run touch ran",
        "options": ["allow_once", "allow_session", "allow_always", "deny"],
        "rule": "bash(touch ran)",
        "session_rules": ["bash(touch ran)"],
        "scope": "`touch ran`",
        "cwd": str(project.root),
        "runs": ["touch"],
    }
    # a write carries the file's content before (none: a new file) and after
    assert (requests[0]["path"], requests[0]["new_text"]) == (str(project.root / "new.txt"), "x")
    assert "old_text" not in requests[0] and requests[0]["scope"] == "all edits in this project"
    decisions = of(records, "permission_decision")
    assert {(d["call_id"], d["decision"], d["by"]) for d in decisions} == {
        (c, "deny", "host") for c in ("inside", "outside", "bash", "extension")
    }
    order = [(r["type"], r.get("call_id")) for r in records if "call_id" in r]
    at = order.index(("permission_request", "bash"))
    assert order[at + 1] == ("permission_decision", "bash")
    assert ("before_tool_call", "bash") not in order
    assert not (project.root / "new.txt").exists() and not outside.exists()


def test_accept_edits_runs_edits_inside_the_project(project: Project) -> None:
    project.script(calls(project), permissions={"mode": "accept-edits"})
    got = told(run(project, "--sandbox", "off"))
    assert got["inside"] == "Wrote 1 bytes to new.txt"
    assert got["outside"].startswith("ERROR: write needs permission")
    assert got["bash"].startswith("ERROR: bash needs permission")
    assert got["extension"].startswith("ERROR: word_count needs permission")


def test_read_only_denies_without_asking(project: Project) -> None:
    project.script(calls(project))
    records = run(project, "--sandbox", "off", "--permission-mode", "read-only")
    got = told(records)
    assert got["read"].endswith("1\tone two")
    assert got["bash"] == needs("bash", "bash(touch ran)", "auto")
    assert of(records, "permission_request") == []
    assert {(d["call_id"], d["by"]) for d in of(records, "permission_decision")} == {
        ("inside", "mode"),
        ("outside", "mode"),
        ("bash", "mode"),
        ("extension", "mode"),
    }


def test_yolo_runs_everything(project: Project) -> None:
    project.script(calls(project), permissions={"mode": "ask"})
    records = run(project, "--sandbox", "off", "--yolo")
    got = told(records)
    assert not any(text.startswith("ERROR") for text in got.values()), got
    assert of(records, "permission_request") == of(records, "permission_decision") == []


def test_rules_in_both_naming_styles_allow_calls(project: Project) -> None:
    project.script(calls(project), permissions={"mode": "ask", "allow": ["Write(./new.txt)"]})
    got = told(
        run(project, "--sandbox", "off", "--allow", "bash(touch:*)", "--allow", "word_count")
    )
    assert got["inside"] == "Wrote 1 bytes to new.txt"
    assert got["bash"] == "(no output)"
    assert got["extension"] == "counted"
    assert got["outside"].startswith("ERROR: write needs permission")


def bash_script(*commands: str) -> list[dict[str, Any]]:
    parts = [
        {"tool": "bash", "args": {"command": c}, "id": f"c{i}"} for i, c in enumerate(commands)
    ]
    return [{"parts": parts}, {"text": "done"}]


def test_deny_beats_allow(project: Project) -> None:
    project.script(
        bash_script("echo ok", "rm -f a.txt"),
        permissions={"mode": "auto", "allow": ["Bash"], "deny": ["bash(rm:*)"]},
    )
    records = run(project)
    got = told(records)
    assert got == {
        "c0": "ok",
        "c1": "ERROR: bash is denied by the rule 'bash(rm:*)' in permissions.deny",
    }
    assert of(records, "permission_decision") == [
        {
            "type": "permission_decision",
            "call_id": "c1",
            "decision": "deny",
            "by": "rule",
            "rule": "bash(rm:*)",
        }
    ]
    assert (project.root / "a.txt").exists()


def test_a_deny_flag_blocks_the_call_the_mode_would_run(project: Project) -> None:
    project.script(bash_script("echo ok", "rm -f a.txt"), permissions={"mode": "auto"})
    records = run(project, "--deny", "bash(rm:*)")
    assert told(records) == {
        "c0": "ok",
        "c1": "ERROR: bash is denied by the rule 'bash(rm:*)' in permissions.deny",
    }
    assert of(records, "permission_decision") == [
        {
            "type": "permission_decision",
            "call_id": "c1",
            "decision": "deny",
            "by": "rule",
            "rule": "bash(rm:*)",
        }
    ]
    assert (project.root / "a.txt").exists()


def test_a_compound_command_is_not_matched_by_a_prefix_rule(project: Project) -> None:
    project.script(bash_script("echo hi && touch pwned", "echo $(touch pwned2)"))
    got = told(run(project, "--permission-mode", "ask", "--allow", "Bash(echo:*)"))
    assert got["c0"] == needs("bash", "bash(touch pwned)", "auto")
    assert got["c1"] == needs("bash", "bash(touch pwned2)", "auto")
    assert not (project.root / "pwned").exists() and not (project.root / "pwned2").exists()


def test_the_headless_deny_is_told_to_the_user_too(project: Project) -> None:
    project.script(bash_script("echo hi"), permissions={"mode": "ask"})
    result = project.run("-p", "go")
    assert result.returncode == 0
    line = "bash needs permission — allow it with --allow 'bash(echo hi)' or --permission-mode auto"
    assert f"auger: warning: {line}\n" in result.stderr


def test_a_bad_rule_flag_exits_2(project: Project) -> None:
    project.script([{"text": "never"}])
    result = project.run("-p", "--allow", "Bash(", "go")
    assert result.returncode == 2
    assert result.stderr.startswith("auger: rule 'Bash(' is not Tool or Tool(specifier)\n")


class Granting:
    """An embedding host that answers every permission request with `allow_always`."""

    capabilities = frozenset({"permission"})

    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []

    async def request_permission(self, request: PermissionRequest) -> str:
        self.requests.append(request)
        return "allow_always"

    def ask(self, question: str, options: Any = None, secret: bool = False) -> None:
        return None

    def confirm(self, question: str) -> bool:
        return False

    def notify(self, message: str, level: str) -> None:
        pass

    def progress(self, label: str) -> Any:
        import contextlib

        return contextlib.nullcontext()


async def test_always_allow_persists_outside_the_repo_and_applies_next_run(
    project: Project,
) -> None:
    project.script(bash_script("echo remembered"), permissions={"mode": "ask"})
    host = Granting()
    rt = Runtime(cwd=project.root, home=project.home, env=project.env, host=host)
    records = [r async for r in rt.prompt("go")]
    await rt.close()
    assert [r.rule for r in host.requests] == ["bash(echo remembered)"]
    assert [r.to_dict()["by"] for r in records if r.type == "permission_decision"] == ["user"]
    saved = list((project.home / "projects").glob("*/settings.local.json"))
    assert len(saved) == 1
    assert json.loads(saved[0].read_text()) == {"permissions": {"allow": ["bash(echo remembered)"]}}
    assert list(project.root.glob(".auger/**/*")) == []  # nothing in the repository
    again = run(project)
    assert told(again) == {"c0": "remembered"}
    assert of(again, "permission_request") == []


WAIT_FOR_MCP = """
import asyncio

async def ready(event, ctx):
    for _ in range(600):  # the server starts in the background: wait for its tool, ≤ 60 s
        if "time__get_current_time" in ctx.tools:
            return
        await asyncio.sleep(0.1)

def extension(g):
    g.on("context", ready)
"""


def test_an_mcp_tool_is_gated_like_any_other(project: Project) -> None:
    (project.root / "wait.py").write_text(WAIT_FOR_MCP)
    time_server = str(Path(sys.executable).parent / "mcp-server-time")
    call = {"tool": "time__get_current_time", "args": {"timezone": "UTC"}, "id": "t1"}
    project.script(
        [{"parts": [call]}, {"text": "done"}],
        permissions={"mode": "ask"},
        mcp={"servers": {"time": {"command": time_server}}},
    )
    denied = told(run(project, "--extension", "wait.py"))
    rule = "time__get_current_time"
    assert denied == {"t1": needs("time__get_current_time", rule, "auto")}
    allowed = told(run(project, "--extension", "wait.py", "--allow", "mcp__time__get_current_time"))
    assert '"timezone": "UTC"' in allowed["t1"]


def test_slash_permissions_shows_the_mode_and_rules(project: Project) -> None:
    project.script([], permissions={"mode": "accept-edits", "deny": ["Read(./.env)"]})
    result = project.run("-p", "--json", "--allow", "bash(ls)", "/permissions")
    assert result.returncode == 0, result.stderr
    [output] = of(json_lines(result.stdout), "command_output")
    assert output["text"] == (
        "Permission mode: accept-edits\nallow: bash(ls)\nask: (none)\ndeny: Read(./.env)"
    )
