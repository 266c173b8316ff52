"""The bubblewrap sandbox: the argv it builds, failing closed, and — through `auger -p --json`
in a real project — what a command may write and reach."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from auger.tools.base import ToolError
from auger.tools.sandbox import Sandbox, find_bwrap, probe
from support.cli import Project, json_lines
from support.server import FakeServer

BWRAP = find_bwrap(os.environ)
PROBLEM = probe(BWRAP)
# Under CI the sandbox must work: these tests fail there rather than skip.
needs_bwrap = pytest.mark.skipif(
    PROBLEM is not None and not os.environ.get("CI"), reason=f"no sandbox here: {PROBLEM}"
)


def test_workspace_write_binds_the_project_and_a_private_temp(tmp_path: Path) -> None:
    box = Sandbox("workspace-write", tmp_path, explicit=True, bwrap="/usr/bin/bwrap")
    argv, env = box.wrap(["bash", "-c", "ls"], tmp_path, {"PATH": "/bin"})
    temp = str(box.temp())
    assert argv[:3] == ["/bin/sh", "-c", 'exec "$@" 3<"$0"']
    assert argv[4:10] == ["/usr/bin/bwrap", "--seccomp", "3", "--ro-bind", "/", "/"]
    for flag in ("--unshare-net", "--die-with-parent", "--unshare-user", "--disable-userns"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"]
    assert binds == [str(tmp_path.resolve()), temp]
    assert argv[-6:] == ["--chdir", str(tmp_path), "--", "bash", "-c", "ls"]
    assert env == {"PATH": "/bin", "TMPDIR": temp, "TMP": temp, "TEMP": temp}
    box.close()
    assert not Path(temp).exists()


def test_a_git_folder_a_running_command_s_sandbox_made_stays_held_empty(tmp_path: Path) -> None:
    box = Sandbox("workspace-write", tmp_path, explicit=True, bwrap="/usr/bin/bwrap")
    git = str(tmp_path / ".git")
    first, _ = box.wrap(["sleep", "9"], tmp_path, {})  # no .git: held by an empty read-only one
    assert first[first.index("--tmpfs", first.index(git) - 2) + 1] == git
    (tmp_path / ".git").mkdir()  # bwrap made the mount point while the first command runs
    second, _ = box.wrap(["true"], tmp_path, {})
    binds = [second[i + 1] for i, a in enumerate(second) if a == "--bind"]
    assert git not in binds  # never bound writable, nothing made inside it
    assert not any(a.startswith(git + "/") for a in second)
    assert second[second.index(git) - 1] == "--tmpfs"
    box.release(), box.release()
    assert not (tmp_path / ".git").exists()  # the last to end removes the mount point
    box.close()


def test_read_only_binds_only_the_temp_and_network_can_be_allowed(tmp_path: Path) -> None:
    box = Sandbox("read-only", tmp_path, network=True, explicit=True, bwrap="bwrap")
    argv, _ = box.wrap(["sh"], tmp_path, {})
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--bind"] == [str(box.temp())]
    assert "--unshare-net" not in argv
    box.close()


def test_off_changes_nothing(tmp_path: Path) -> None:
    box = Sandbox("off", tmp_path)
    assert box.wrap(["sh", "-c", "x"], tmp_path, {"A": "1"}) == (["sh", "-c", "x"], {"A": "1"})
    box.check_write(Path("/etc/passwd"), "/etc/passwd")  # no boundary


def test_a_sandbox_that_cannot_start_fails_closed(tmp_path: Path) -> None:
    asked = {"sandbox": {"mode": "workspace-write"}}
    box, notice = Sandbox.from_settings(asked, tmp_path, {"PATH": str(tmp_path)})
    assert notice is None
    with pytest.raises(ToolError) as err:
        box.wrap(["sh"], tmp_path, {})
    assert err.value.error_type == "sandbox_unavailable"
    assert err.value.message == (
        "the workspace-write sandbox cannot start: bwrap is not installed — the command did not "
        "run; install bubblewrap (apt-get install bubblewrap) or pass --sandbox off"
    )


def test_with_nothing_asked_and_no_bwrap_the_sandbox_is_off_with_a_notice(tmp_path: Path) -> None:
    box, notice = Sandbox.from_settings({}, tmp_path, {"PATH": str(tmp_path)})
    assert box.mode == "off" and not box.explicit
    assert notice == (
        "shell commands run without a sandbox: bwrap is not installed; the permission mode "
        "decides alone (install bubblewrap (apt-get install bubblewrap) to sandbox them)"
    )


def test_the_probe_names_what_is_missing() -> None:
    assert probe(None) == "bwrap is not installed"
    assert (
        probe("/usr/bin/bwrap", "darwin") == "bubblewrap sandboxing is Linux-only (this is darwin)"
    )
    assert probe("/nonexistent/bwrap").startswith("bwrap does not start")


def test_writes_outside_the_writable_folders_are_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (tmp_path / "escape").symlink_to(tmp_path)
    box = Sandbox("workspace-write", project, explicit=True)
    box.check_write(project / "sub" / "new.txt", "sub/new.txt")
    box.check_write(box.temp() / "scratch", "scratch")
    for outside in (tmp_path / "x", project / ".." / "x", Path("/etc/x")):
        with pytest.raises(ToolError, match="outside the workspace-write sandbox"):
            box.check_write(outside, str(outside))
    (project / "link").symlink_to(tmp_path)
    with pytest.raises(ToolError):
        box.check_write(project / "link" / "x", "link/x")  # a symlink out is still out
    # protected paths are the permission step's question (it always asks), not a refusal here
    box.check_write(project / ".auger" / "settings.json", ".auger/settings.json")
    read_only = Sandbox("read-only", project, explicit=True)
    with pytest.raises(ToolError, match="its private temp only"):
        read_only.check_write(project / "x", "x")
    box.close()
    read_only.close()


# -- through `auger -p --json` -----------------------------------------------------------------


def bash_calls(*commands: str | dict[str, Any]) -> list[dict[str, Any]]:
    """One model reply calling `bash` with each command (or arguments), then a text reply."""
    parts = [
        {"tool": "bash", "args": c if isinstance(c, dict) else {"command": c}, "id": f"c{i}"}
        for i, c in enumerate(commands)
    ]
    return [{"parts": parts}, {"text": "done"}]


def results(project: Project, *args: str) -> dict[str, dict[str, Any]]:
    result = project.run("-p", "--json", *args, "go")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    return {r["call_id"]: r["result"] for r in records if r["type"] == "after_tool_call"}


@needs_bwrap
@pytest.mark.slow
def test_workspace_write_confines_foreground_and_background_commands(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    background = {"command": "touch ./bg-in; touch ~/bg-out", "run_in_background": True}
    project.script(
        bash_calls(
            "touch ~/outside",
            "echo x > /etc/x",
            "touch ./inside && touch $TMPDIR/scratch && echo ok",
            background,
            "sleep 1",
        )
    )
    got = results(project)  # nothing asked: workspace-write, as bwrap works here
    assert "Read-only file system" in got["c0"]["content"]
    assert "Read-only file system" in got["c1"]["content"]
    assert got["c2"]["content"] == "ok" and (project.root / "inside").exists()
    assert not (tmp_path / "outside").exists() and not Path("/etc/x").exists()
    assert (project.root / "bg-in").exists() and not (tmp_path / "bg-out").exists()
    assert got["c4"]["content"] == "(no output)"


@needs_bwrap
@pytest.mark.slow
def test_project_settings_extensions_and_git_hooks_stay_read_only(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    (project.root / ".git" / "hooks").mkdir(parents=True)
    (project.root / ".git" / "config").write_text("[core]\n")
    write = {"path": ".auger/settings.json", "content": "{}"}
    project.script(
        [
            {
                "parts": [
                    {"tool": "bash", "args": {"command": "mkdir -p .auger/extensions"}, "id": "c0"},
                    {
                        "tool": "bash",
                        "args": {"command": "echo x > .git/hooks/pre-commit"},
                        "id": "c1",
                    },
                    {"tool": "bash", "args": {"command": "echo x >> .git/config"}, "id": "c2"},
                    {"tool": "write", "args": write, "id": "w"},
                    {"tool": "bash", "args": {"command": "touch ok && echo fine"}, "id": "c3"},
                ]
            },
            {"text": "done"},
        ]
    )
    got = results(project)
    for call in ("c0", "c1", "c2"):
        assert "Read-only file system" in got[call]["content"], got[call]
    assert got["w"]["error_type"] == "blocked"
    assert ".auger is protected" in got["w"]["content"]
    assert got["c3"]["content"] == "fine"
    assert not (project.root / ".auger" / "extensions").exists()
    assert not (project.root / ".git" / "hooks" / "pre-commit").exists()
    assert (project.root / ".git" / "config").read_text() == "[core]\n"


@needs_bwrap
@pytest.mark.slow
def test_read_only_leaves_only_the_private_temp_writable(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(bash_calls("touch ./inside", "touch $TMPDIR/scratch && echo ok"))
    got = results(project, "--sandbox", "read-only")
    assert "Read-only file system" in got["c0"]["content"]
    assert got["c1"]["content"] == "ok"
    assert not (project.root / "inside").exists()


@needs_bwrap
@pytest.mark.slow
def test_the_network_is_off_unless_allowed(tmp_path: Path, fake_server: FakeServer) -> None:
    port = fake_server.url.rsplit(":", 1)[1]
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')"
    commands = [f'python3 -c "{code}"']
    if shutil.which("curl"):
        commands.append(f"curl -s -o /dev/null -w 'status %{{http_code}}' {fake_server.url}/x")
    project = Project.make(tmp_path)
    project.script(bash_calls(*commands))
    for denied in results(project).values():
        assert denied["is_error"] and "connected" not in denied["content"], denied
    assert fake_server.requests == []
    project.script(bash_calls(*commands), sandbox={"network": True})
    allowed = results(project)
    assert allowed["c0"]["content"] == "connected"
    if len(commands) > 1:
        assert allowed["c1"]["content"] == "status 500"  # the server answered (nothing queued)


@needs_bwrap
@pytest.mark.slow
def test_write_outside_the_project_is_refused(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    outside = tmp_path / "outside.txt"
    write = {"tool": "write", "args": {"path": str(outside), "content": "x"}, "id": "w"}
    project.script([{"parts": [write]}, {"text": "done"}])
    got = results(project)["w"]
    assert got["error_type"] == "sandbox"
    assert got["content"].startswith(f"{outside} is outside the workspace-write sandbox")
    assert not outside.exists()


def no_bwrap_path(tmp_path: Path) -> str:
    """A PATH with a shell and `touch`, but no bwrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "touch"):
        found = shutil.which(name)
        assert found is not None
        (bin_dir / name).symlink_to(found)
    return str(bin_dir)


@pytest.mark.slow
def test_without_bwrap_an_asked_for_sandbox_fails_closed(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.env["PATH"] = no_bwrap_path(tmp_path)
    project.script(bash_calls("touch ./ran"))
    got = results(project, "--sandbox", "workspace-write")["c0"]
    assert got["error_type"] == "sandbox_unavailable"
    assert got["content"].startswith(
        "the workspace-write sandbox cannot start: bwrap is not installed"
    )
    assert not (project.root / "ran").exists()


@pytest.mark.slow
def test_without_bwrap_and_nothing_asked_one_notice_says_so(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.env["PATH"] = no_bwrap_path(tmp_path)
    project.script(bash_calls("touch ./ran"))
    result = project.run("-p", "--json", "go")
    assert result.returncode == 0, result.stderr
    notices = [r["message"] for r in json_lines(result.stdout) if r["type"] == "notify"]
    assert [n for n in notices if "sandbox" in n] == [
        "shell commands run without a sandbox: bwrap is not installed; the permission mode "
        "decides alone (install bubblewrap (apt-get install bubblewrap) to sandbox them)"
    ]
    assert (project.root / "ran").exists()
