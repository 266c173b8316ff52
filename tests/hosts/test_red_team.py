"""The red team's attacks (issue 23), each through `auger -p --json` in a real project, as root
on CI, with bubblewrap: what a stranger's repository or a model's command tries, and that it
now does nothing. Each test failed on the tree before the fix."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from auger.tools.sandbox import find_bwrap, probe
from support.cli import Project, json_lines

pytestmark = pytest.mark.slow

PROBLEM = probe(find_bwrap(os.environ))
needs_bwrap = pytest.mark.skipif(
    PROBLEM is not None and not os.environ.get("CI"), reason=f"no sandbox here: {PROBLEM}"
)
SECRET = "sk-ant-red-team-0123456789"
STORED = "sk-ant-stored-9876543210"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project.make(tmp_path)
    made.env["ANTHROPIC_API_KEY"] = SECRET
    made.env["AWS_SECRET_ACCESS_KEY"] = "aws-" + SECRET
    (made.home / "auth.json").write_text(json.dumps({"anthropic": STORED}))
    os.chmod(made.home / "auth.json", 0o600)
    return made


def calls(*parts: dict[str, Any] | str) -> list[dict[str, Any]]:
    """One reply with these tool calls (a string is a bash command), then a text reply."""
    made = [
        {"tool": "bash", "args": {"command": p}, "id": f"c{i}"}
        if isinstance(p, str)
        else {"id": f"c{i}", **p}
        for i, p in enumerate(parts)
    ]
    return [{"parts": made}, {"text": "done"}]


def run(project: Project, *args: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    result = subprocess.run(
        project.command("-p", "--json", *args, "go"),
        cwd=cwd or project.root,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode in (0, 1), result.stderr
    return json_lines(result.stdout)


def told(records: list[dict[str, Any]]) -> dict[str, str]:
    return {r["call_id"]: r["result"]["content"] for r in records if r["type"] == "after_tool_call"}


def notices(records: list[dict[str, Any]]) -> list[str]:
    return [r["message"] for r in records if r["type"] == "notify"]


def saved(project: Project) -> str:
    """Everything auger saved: every session file's text."""
    return "".join(p.read_text() for p in (project.home / "sessions").rglob("*.jsonl"))


def trust(project: Project) -> None:
    assert project.run("trust").returncode == 0


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


# -- 1. text files are read safely -------------------------------------------------------------


def test_an_agents_md_linked_to_the_environment_is_skipped(project: Project) -> None:
    (project.root / "AGENTS.md").symlink_to("/proc/self/environ")
    project.script([{"text": "ok"}])
    records = run(project)
    assert any("AGENTS.md" in n and "skipped" in n for n in notices(records)), notices(records)
    assert SECRET not in saved(project)


def test_a_claude_md_linked_to_the_credential_file_is_skipped(project: Project) -> None:
    (project.root / "CLAUDE.md").symlink_to(project.home / "auth.json")
    project.script([{"text": "ok"}])
    records = run(project)
    assert any("CLAUDE.md" in n for n in notices(records))
    assert STORED not in saved(project)


def test_a_linked_agents_md_in_a_subfolder_is_skipped(project: Project) -> None:
    git(project.root, "init", "-q")
    (project.root / "sub").mkdir()
    (project.root / "sub" / "AGENTS.md").symlink_to("/proc/self/environ")
    (project.root / "AGENTS.md").write_text("Root rules.")
    project.script([{"text": "ok"}])
    records = run(project, cwd=project.root / "sub")
    assert any("sub/AGENTS.md" in n for n in notices(records))
    assert SECRET not in saved(project) and "Root rules." in saved(project)


def test_a_fifo_agents_md_does_not_hang_the_start(project: Project) -> None:
    os.mkfifo(project.root / "AGENTS.md")
    project.script([{"text": "ok"}])
    records = run(project)
    assert any("not a regular file" in n for n in notices(records))


def test_a_template_linked_to_the_environment_is_skipped(project: Project) -> None:
    prompts = project.root / ".auger" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").symlink_to("/proc/self/environ")
    project.script([{"text": "ok"}])
    result = project.run("-p", "--json", "/review")
    assert SECRET not in result.stdout + result.stderr
    assert any("review.md" in n for n in notices(json_lines(result.stdout)))


# -- 2. nothing a sandboxed command plants runs at the next start ------------------------------

MARK = "touch {mark}"


def _planted(project: Project, tmp_path: Path, command: str) -> Path:
    """Run `command` (with {mark} filled in) through the model in a trusted git project, then
    start auger again and run the user's own `git status`; the marker path it would create."""
    mark = tmp_path / "ran-unsandboxed"
    git(project.root, "init", "-q")
    trust(project)
    project.script(calls(command.replace("{mark}", str(mark))))
    run(project)
    project.script([{"text": "again"}])
    run(project)
    subprocess.run(["git", "status"], cwd=project.root, capture_output=True, env=project.env)
    return mark


@needs_bwrap
def test_a_planted_claude_session_start_hook_never_runs(project: Project, tmp_path: Path) -> None:
    hook = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": MARK}]}]}}
    text = json.dumps(hook).replace("'", "'\\''")
    mark = _planted(project, tmp_path, f"mkdir -p .claude && echo '{text}' > .claude/settings.json")
    assert not mark.exists()
    assert not (project.root / ".claude").exists()  # the empty mount point is gone too


@needs_bwrap
def test_a_planted_mcp_json_never_starts(project: Project, tmp_path: Path) -> None:
    server = {"mcpServers": {"x": {"command": "sh", "args": ["-c", MARK]}}}
    text = json.dumps(server).replace("'", "'\\''")
    mark = _planted(project, tmp_path, f"echo '{text}' > .mcp.json")
    assert not mark.exists() and not (project.root / ".mcp.json").exists()


@needs_bwrap
def test_a_rebuilt_git_with_an_fsmonitor_never_runs(project: Project, tmp_path: Path) -> None:
    mark = _planted(
        project,
        tmp_path,
        "mv .git .git_old; git init -q . ; git config core.fsmonitor '{mark}'; "
        "echo '[core]' > .git/config.new; printf '\\tfsmonitor = {mark}\\n' >> .git/config",
    )
    assert not mark.exists() and not (project.root / ".git_old").exists()
    assert "fsmonitor" not in (project.root / ".git" / "config").read_text()


@needs_bwrap
def test_git_cannot_be_created_where_there_was_none(project: Project, tmp_path: Path) -> None:
    mark = tmp_path / "ran-unsandboxed"
    project.script(calls(f"git init -q . && git config core.fsmonitor 'touch {mark}'"))
    trust(project)
    run(project)
    assert not (project.root / ".git").exists()
    subprocess.run(["git", "status"], cwd=project.root, capture_output=True)
    assert not mark.exists()


@needs_bwrap
def test_a_git_commondir_made_by_a_command_is_removed(project: Project, tmp_path: Path) -> None:
    evil = tmp_path / "evil"
    subprocess.run(["git", "init", "-q", "--bare", str(evil)], check=True)
    (evil / "config").write_text(f"[core]\n\tfsmonitor = touch {tmp_path / 'mark'}\n")
    mark = _planted(project, tmp_path, f"echo {evil} > .git/commondir")
    assert not (project.root / ".git" / "commondir").exists() and not mark.exists()


@needs_bwrap
def test_a_submodules_config_and_hooks_stay_read_only(project: Project) -> None:
    git(project.root, "init", "-q")
    module = project.root / ".git" / "modules" / "lib"
    (module / "hooks").mkdir(parents=True)
    (module / "config").write_text("[core]\n")
    project.script(
        calls(
            "echo '\tfsmonitor = touch x' >> .git/modules/lib/config",
            "touch .git/modules/lib/hooks/post-checkout",
        )
    )
    got = told(run(project))
    assert "Read-only file system" in got["c0"] and "Read-only file system" in got["c1"]
    assert (module / "config").read_text() == "[core]\n"


@needs_bwrap
def test_ordinary_git_works_in_the_sandbox(project: Project) -> None:
    git(project.root, "init", "-q")
    (project.root / "a.txt").write_text("one\n")
    identity = "-c user.name=m -c user.email=m@x"
    project.script(
        calls(
            f"git add a.txt && git {identity} commit -qm first && echo two >> a.txt && "
            f"git stash -q && git stash pop -q && git checkout -q -b topic && "
            f"git {identity} commit -qam second && git log --oneline | wc -l"
        )
    )
    got = told(run(project))
    assert got["c0"].strip() == "2", got


def test_writing_a_protected_path_asks_even_in_auto(project: Project) -> None:
    write = {"tool": "write", "args": {"path": ".claude/settings.json", "content": "{}"}}
    project.script(calls(write))
    records = run(project, "--sandbox", "off", "--yolo")
    got = told(records)
    assert ".claude is protected" in got["c0"] and "only a person can allow it" in got["c0"]
    assert "--allow" not in got["c0"]  # no rule could: the denial says what can
    assert not (project.root / ".claude").exists()
    [asked] = [r for r in records if r["type"] == "permission_request"]
    assert asked["options"] == ["allow_once", "deny"]  # no rule to save: it would never apply


# -- 3. no privileges in the sandbox, also as root ---------------------------------------------


@needs_bwrap
def test_privileged_operations_fail_in_the_sandbox(project: Project, tmp_path: Path) -> None:
    pwned = Path("/etc") / f"auger-pwned-{tmp_path.name}-{os.getpid()}"
    attempts = [
        f"mount -o remount,rw / && echo x > {pwned}",
        "unshare -r true",
        "mknod ./null c 1 3",
        "/usr/sbin/chroot / true",
        "echo 1 > /proc/sys/kernel/printk",
        "grep CapEff /proc/self/status",
    ]
    before = Path("/proc/sys/kernel/printk").read_text()
    project.script(calls(*attempts))
    got = told(run(project))
    for i in range(5):
        assert got[f"c{i}"].startswith("ERROR") or "exit code" in got[f"c{i}"], got[f"c{i}"]
    assert got["c5"].split()[-1] == "0000000000000000"
    assert not pwned.exists() and not (project.root / "null").exists()
    assert Path("/proc/sys/kernel/printk").read_text() == before


# -- 4. the repository's git config never runs from the terminal: tests/hosts/terminal ----------

# -- 5. deny rules hold in every shell form ----------------------------------------------------

FORMS = [
    "X=1 rm {f}", "env rm {f}", "env X=1 rm {f}", "command rm {f}", "exec rm {f}",
    "nice rm {f}", "nohup rm {f}", "time rm {f}", "timeout 5 rm {f}", "echo {f} | xargs rm",
    "find . -name {f} -exec rm {{}} +", "/usr/bin/rm {f}", "$'rm' {f}", "rm${{IFS}}{f}",
    "{{ rm {f}; }}", "if true; then rm {f}; fi", "for x in {f}; do rm $x; done", "! rm {f}",
    "eval rm {f}", "$(echo rm) {f}", "`echo rm` {f}", "t=rm; $t {f}", "sh <<< 'rm {f}'",
    "printf 'rm {f}' | bash", "source /dev/stdin <<< 'rm {f}'", ". <(echo rm {f})",
    "bash -c 'rm {f}'", "sh -c 'rm {f}'", "touch new-{f}", "stdbuf -oL rm {f}",
]  # fmt: skip


def test_deny_rules_hold_against_every_shell_form(project: Project) -> None:
    names = [f"f{i}" for i in range(len(FORMS))]
    for name in names:
        (project.root / name).write_text("keep")
    project.script(calls(*(form.format(f=name) for form, name in zip(FORMS, names, strict=True))))
    got = told(run(project, "--sandbox", "off", "--deny", "bash(rm:*)", "--deny", "bash(touch:*)"))
    for i, name in enumerate(names):
        assert "denied" in got[f"c{i}"], (FORMS[i], got[f"c{i}"])
        assert (project.root / name).exists(), FORMS[i]
    assert "could not be read" in got["c18"]  # eval


# -- 6. secrets stay out of reach ---------------------------------------------------------------


def test_commands_get_no_key_like_variables(project: Project) -> None:
    project.env["MY_PLAIN"] = "visible"
    project.script(calls("env"))
    got = told(run(project, "--sandbox", "off"))
    assert SECRET not in got["c0"] and "MY_PLAIN=visible" in got["c0"]


def test_a_variable_named_in_shell_env_include_gets_through(project: Project) -> None:
    project.env["GITHUB_TOKEN"] = "ghp-through"
    project.script(calls("env"), shell={"env": {"include": ["GITHUB_TOKEN"]}})
    got = told(run(project, "--sandbox", "off"))
    assert "ghp-through" in got["c0"] and SECRET not in got["c0"]


@needs_bwrap
def test_the_auger_home_is_hidden_in_the_sandbox(project: Project) -> None:
    project.script(calls(f"cat {project.home}/auth.json; ls {project.home}"))
    got = told(run(project))
    assert STORED not in got["c0"]


@pytest.mark.parametrize("mode", ["ask", "read-only", "auto"])
def test_the_read_tool_never_reads_the_credential_file(project: Project, mode: str) -> None:
    project.script(calls({"tool": "read", "args": {"path": str(project.home / "auth.json")}}))
    got = told(run(project, "--permission-mode", mode))
    assert STORED not in got["c0"]
    assert "credential file" in got["c0"] or "needs permission" in got["c0"], got["c0"]


def test_a_hard_link_to_the_credential_file_is_not_read(project: Project) -> None:
    os.link(project.home / "auth.json", project.root / "notes.txt")
    project.script(calls({"tool": "read", "args": {"path": "notes.txt"}}))
    got = told(run(project, "--yolo"))
    assert STORED not in got["c0"] and "credential file" in got["c0"]


def test_grep_never_shows_the_credential_file(project: Project) -> None:
    search = {"pattern": "sk-ant", "path": str(project.home)}
    project.script(calls({"tool": "grep", "args": search}))
    got = told(run(project, "--yolo"))
    assert STORED not in got["c0"]


def test_reading_outside_the_project_asks(project: Project, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("private notes")
    project.script(calls({"tool": "read", "args": {"path": str(tmp_path / "notes.txt")}}))
    got = told(run(project, "--permission-mode", "ask"))
    assert "private notes" not in got["c0"] and "reads outside the project" in got["c0"]
    project.script(calls({"tool": "read", "args": {"path": str(tmp_path / "notes.txt")}}))
    allowed = told(run(project, "--permission-mode", "ask", "--allow", f"Read(/{tmp_path}/**)"))
    assert "private notes" in allowed["c0"]


# -- 7. host Unix sockets are unreachable --------------------------------------------------------


@needs_bwrap
def test_a_host_unix_socket_cannot_be_reached(project: Project, tmp_path: Path) -> None:
    path = str(tmp_path / "agent.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    server.settimeout(20)
    accepted: list[bool] = []

    def accept() -> None:
        try:
            server.accept()[0].close()
            accepted.append(True)
        except OSError:
            pass

    threading.Thread(target=accept, daemon=True).start()
    connect = f"import socket; s=socket.socket(socket.AF_UNIX); s.connect({path!r}); print('in')"
    pair = "import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))"
    project.script(calls(f'python3 -c "{connect}"', f'python3 -c "{pair}"'))
    got = told(run(project))
    server.close()
    assert "Permission denied" in got["c0"] and accepted == []
    assert "b'x'" in got["c1"]


# -- 8. read-only mode writes nothing -----------------------------------------------------------


@pytest.mark.parametrize("redirect", [">", ">>", "1>", "&>"])
def test_read_only_mode_refuses_a_redirection(project: Project, redirect: str) -> None:
    project.script(calls(f"echo hi {redirect} M"))
    got = told(run(project, "--permission-mode", "read-only", "--allow", "bash(echo:*)"))
    assert "writes to M" in got["c0"] and not (project.root / "M").exists()
    assert "--permission-mode ask, accept-edits or auto" in got["c0"] and "--allow" not in got["c0"]


@needs_bwrap
def test_read_only_mode_implies_the_read_only_sandbox(project: Project) -> None:
    project.script(calls("touch made-here"))
    got = told(run(project, "--permission-mode", "read-only", "--allow", "bash(touch:*)"))
    assert "Read-only file system" in got["c0"] and not (project.root / "made-here").exists()


def test_read_only_mode_runs_reading_commands(project: Project) -> None:
    (project.root / "a.txt").write_text("hello")
    project.script(calls("ls && cat a.txt | wc -c"))
    got = told(run(project, "--permission-mode", "read-only"))
    assert "a.txt" in got["c0"] and "5" in got["c0"]


# -- 9. an untrusted template never shadows a command --------------------------------------------


def test_an_untrusted_template_does_not_replace_model(project: Project) -> None:
    prompts = project.root / ".auger" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "model.md").write_text("Send this to the model: $ARGUMENTS")
    (prompts / "fix.md").write_text("Fix $1")
    project.script([{"text": "ok"}])
    result = project.run("-p", "--json", "/model")
    records = json_lines(result.stdout)
    assert any("model.md skipped" in n for n in notices(records))
    assert any(r["type"] == "command_output" and r["command"] == "model" for r in records)
    assert not any(r["type"] == "text_delta" for r in records)  # nothing went to the model
    trust(project)
    records = json_lines(project.run("-p", "--json", "/fix it").stdout)
    assert any(r["type"] == "text_delta" for r in records)  # a trusted project's template ran


# -- 10. `python -m auger` and a repository's own `auger/` package -------------------------------


def test_the_auger_script_and_python_p_never_import_a_project_package(
    project: Project, tmp_path: Path
) -> None:
    package = project.root / "auger"
    package.mkdir()
    mark = tmp_path / "imported"
    (package / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    (package / "__main__.py").write_text("")
    script = shutil.which("auger", path=str(Path(sys.executable).parent))
    assert script is not None
    for argv in ([script, "--version"], [sys.executable, "-P", "-m", "auger", "--version"]):
        done = subprocess.run(argv, cwd=project.root, env=project.env, capture_output=True)
        assert done.returncode == 0 and not mark.exists(), argv
    # what the README warns of: plain `python -m auger` puts the working directory first
    subprocess.run([sys.executable, "-m", "auger", "--version"], cwd=project.root, env=project.env)
    assert mark.exists()
