"""Loading extensions: failures isolated, replacements reported, settings, flags, user and
project folders (trust), and one set of handlers per Runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from auger.config.trust import TrustStore
from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.loader import Options, build
from auger.records import AfterToolCall, Notify
from support.cli import Project, json_lines
from support.extensions import ALL_EVENTS, Extensions, runtime
from support.hosts import Answering
from support.runtime import collect

TURN_START = 'def extension(g):\n    g.on("turn_start", lambda e: record(e, by={by!r}))\n'
VALID = ", ".join(ALL_EVENTS)


@pytest.fixture
def exts(tmp_path: Path) -> Extensions:
    """Extension files under `tmp_path`, and the log their handlers write."""
    return Extensions.make(tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A project and an isolated `AUGER_HOME` whose scripted model answers "ok"."""
    project = Project.make(tmp_path)
    project.script([{"text": "ok"}])
    return project


def broken_extensions(exts: Extensions) -> list[Path]:
    """Three extensions that fail to load, each its own way, then one that loads."""
    return [
        exts.write("raises", 'raise RuntimeError("cannot find my config")\n'),
        exts.write("syntax", "def extension(g)\n    pass\n"),
        exts.write(
            "unknown",
            """
            def extension(g):
                g.tool(echo)
                g.on("turn_start", record)
                g.on("tool_cal", record)
            """,
        ),
        exts.write("good", TURN_START.format(by="good")),
    ]


def check_load_failures(notices: list[tuple[str, str]]) -> None:
    """The three failures of `broken_extensions`, in load order, each naming its extension."""
    raises, syntax, unknown = notices
    assert raises == ("error", "Extension raises failed to load: cannot find my config")
    assert syntax[0] == "error"
    assert syntax[1].startswith("Extension syntax failed to load: syntax.py line ")
    assert syntax[1].endswith(": expected ':'")
    assert unknown == (
        "error",
        f"Extension unknown failed to load: unknown event 'tool_cal'; valid events: {VALID}",
    )


async def test_a_failing_extension_is_skipped_whole_and_the_others_load(
    tmp_path: Path, exts: Extensions
) -> None:
    rt = runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), *broken_extensions(exts))
    records = await collect(rt, "go")
    assert [r.type for r in records[:4]] == ["session_start", "notify", "notify", "notify"]
    check_load_failures([(r.level, r.message) for r in records if isinstance(r, Notify)])
    # the failed extension's earlier registrations are dropped with it
    assert "echo" not in rt.tools
    assert [s["by"] for s in exts.seen()] == ["good"]


def test_load_failures_under_p(project: Project, exts: Extensions) -> None:
    flags = [arg for path in broken_extensions(exts) for arg in ("--extension", str(path))]
    result = project.run("-p", "--json", *flags, "go")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    check_load_failures([(r["level"], r["message"]) for r in records if r["type"] == "notify"])
    assert result.stderr.count("auger: error: Extension ") == 3
    assert [s["by"] for s in exts.seen()] == ["good"]


def test_a_missing_extension_file_is_a_usage_error(project: Project) -> None:
    result = project.run("-p", "--extension", "nowhere.py", "go")
    assert result.returncode == 2
    assert result.stderr == "auger: extension file nowhere.py does not exist\n"


async def test_replacing_a_tool_is_reported(tmp_path: Path, exts: Extensions) -> None:
    body = '''
        def bash(command: str) -> str:
            """Pretend to run a command."""
            return "{name} ran " + command

        def extension(g):
            g.tool(bash)
        '''
    a, b = (exts.write(name, body.format(name=name)) for name in ("A", "B"))
    provider = ScriptedProvider([Reply.of(Call("bash", {"command": "ls"})), Reply.of("ok")])
    auto = {"permissions": {"mode": "auto"}}
    rt = runtime(tmp_path, provider, a, b, bundled=True, settings=auto)
    records = await collect(rt, "go")
    assert [r.message for r in records if isinstance(r, Notify) and "replaces" in r.message] == [
        "Extension A replaces tool bash from bash",
        "Extension B replaces tool bash from A",
    ]
    assert next(r for r in records if isinstance(r, AfterToolCall)).result.content == "B ran ls"


async def test_settings_disable_extensions_by_name(tmp_path: Path, exts: Extensions) -> None:
    noisy = exts.write("noisy", TURN_START.format(by="noisy"))
    settings = {"extensions": {"disabled": ["bash", "noisy"]}}
    rt = runtime(
        tmp_path, ScriptedProvider([Reply.of("ok")]), noisy, settings=settings, bundled=True
    )
    assert "bash" not in rt.tools and {"read", "write", "edit"} <= set(rt.tools)
    await collect(rt, "go")
    assert exts.seen() == []


def test_user_extensions_load_unless_no_extensions(project: Project, exts: Extensions) -> None:
    exts.write("mine", TURN_START.format(by="user"), folder=project.home / "extensions")
    flagged = exts.write("flagged", TURN_START.format(by="flag"))
    assert project.run("-p", "hi").returncode == 0
    assert [s["by"] for s in exts.seen()] == ["user"]
    exts.clear()
    result = project.run("-p", "--no-extensions", "--extension", str(flagged), "hi")
    assert result.returncode == 0, result.stderr
    assert [s["by"] for s in exts.seen()] == ["flag"]


def test_project_extensions_load_only_once_trusted(project: Project, exts: Extensions) -> None:
    folder = project.root / ".auger" / "extensions"
    exts.write("local", TURN_START.format(by="project"), folder=folder)
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    notice = (
        "this project is not trusted, so these were ignored: .auger/extensions/local.py — "
        "run `auger trust ~/project` to apply them"
    )
    assert {"type": "notify", "message": notice, "level": "warning"} in json_lines(result.stdout)
    assert f"auger: warning: {notice}\n" in result.stderr
    assert exts.seen() == []

    trusted = project.run("trust")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.startswith("trusted ~/project: its extensions, hooks, MCP servers")
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    assert "not trusted" not in result.stderr
    assert [s["by"] for s in exts.seen()] == ["project"]


async def test_a_host_that_can_confirm_is_asked_once(tmp_path: Path, exts: Extensions) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    exts.write("local", TURN_START.format(by="project"), folder=cwd / ".auger" / "extensions")
    host = Answering(True)
    wanted = Options(cwd=str(cwd), home=str(home), env={"HOME": str(tmp_path)})
    for _ in range(2):
        rt = await build(wanted, host, provider=ScriptedProvider([Reply.of("hi")]))
        await collect(rt, "go")
        await rt.close()
    assert [s["by"] for s in exts.seen()] == ["project", "project"]
    assert len(host.asked) == 1 and "local.py" in host.asked[0]
    assert TrustStore(home).is_trusted(cwd)


async def test_two_runtimes_never_share_handlers(tmp_path: Path, exts: Extensions) -> None:
    counter = exts.write(
        "counter",
        """
        turns = []

        def extension(g):
            g.on("turn_start", lambda e: turns.append(e.text) or record(e, count=len(turns)))
        """,
    )
    one_dir, two_dir = tmp_path / "one", tmp_path / "two"
    one_dir.mkdir()
    two_dir.mkdir()
    one = runtime(one_dir, ScriptedProvider([Reply.of("a"), Reply.of("c")]), counter)
    two = runtime(two_dir, ScriptedProvider([Reply.of("b")]), counter)
    await collect(one, "a")
    await collect(two, "b")
    await collect(one, "c")
    assert [(s["text"], s["count"]) for s in exts.seen()] == [("a", 1), ("b", 1), ("c", 2)]
