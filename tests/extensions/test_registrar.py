"""The registrar's seams: providers, settings, prompt sections, custom records, skills."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import msgspec

from auger.llm.records import Record
from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import Notify
from auger.runtime import Runtime
from support.cli import Project, json_lines
from support.context import contexts
from support.runtime import collect, make_runtime


class Shout(Record, frozen=True):
    """A custom record."""

    type: ClassVar[str] = "shout"
    text: str


def test_an_extension_provider_serves_its_models(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("from the extension provider")], name="mine")

    def ext(g: Any) -> None:
        g.provider(
            "mine",
            lambda: provider,
            models={"big": {"context_window": 1234, "input": 1.0, "output": 2.0}},
        )

    rt = Runtime(
        "mine/big",
        env={},
        home=tmp_path / "h",
        cwd=tmp_path,
        settings={},
        bundled=False,
        extensions=[ext],
    )
    assert (rt.model.id, rt.model.context_window) == ("mine/big", 1234)
    assert rt.model.pricing is not None
    assert rt.ask_sync("hi").text == "from the extension provider"
    rt.close_sync()


async def test_settings_namespace_and_defaults(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def budget(g: Any) -> None:
        seen["limit"] = g.setting("limit", 5)
        seen["unset"] = g.setting("unset", "default")
        seen["all"] = g.settings

    make_runtime(
        tmp_path,
        ScriptedProvider(),
        extensions=[("budget", budget)],
        settings={"budget": {"limit": 9}, "other": {"limit": 1}},
    )
    assert seen == {"limit": 9, "unset": "default", "all": {"limit": 9, "unset": "default"}}


async def test_prompt_sections_are_rendered_every_turn(tmp_path: Path) -> None:
    calls = []

    def ext(g: Any) -> None:
        g.prompt("static", "Always answer in French.")
        g.prompt("dynamic", lambda: calls.append(1) or f"Turn number {len(calls)}.")

    provider = ScriptedProvider([Reply.of("a"), Reply.of("b")])
    rt = make_runtime(tmp_path, provider, extensions=[ext])
    await collect(rt, "one")
    await collect(rt, "two")
    assert "Always answer in French." in provider.requests[0].system
    assert "Turn number 1." in provider.requests[0].system
    assert "Turn number 2." in provider.requests[1].system


async def test_emit_sends_a_custom_record_to_the_stream(tmp_path: Path) -> None:
    def ext(g: Any) -> None:
        g.on("turn_start", lambda e: g.emit(Shout(e.text.upper())))

    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), extensions=[ext])
    records = await collect(rt, "hello")
    shout = next(r for r in records if r.type == "shout")
    assert shout.to_dict() == {"type": "shout", "text": "HELLO"}
    assert msgspec.json.encode(shout.to_dict()) == b'{"type":"shout","text":"HELLO"}'


async def test_replacing_a_command_is_reported(tmp_path: Path) -> None:
    def a(g: Any) -> None:
        g.command("hi", lambda ctx: None)

    def b(g: Any) -> None:
        g.command("hi", lambda ctx: None)

    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("ok")]), extensions=[("a", a), ("b", b)])
    records = await collect(rt, "x")
    assert any(
        isinstance(r, Notify) and r.message == "Extension b replaces command hi from a"
        for r in records
    )
    assert rt.commands["hi"].owner == "b"


async def test_skills_folders_added_by_an_extension(tmp_path: Path) -> None:
    folder = tmp_path / "team-skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: ship it\n---\nSteps.\n")
    provider = ScriptedProvider([Reply.of("ok")])
    rt = make_runtime(
        tmp_path, provider, bundled=True, extensions=[lambda g: g.skills(tmp_path / "team-skills")]
    )
    assert "skill:deploy" in rt.commands
    await collect(rt, "x")
    [context] = contexts(provider.requests[0].messages)
    assert "<name>deploy</name>" in context


def test_a_custom_record_prints_in_json_mode(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["ok"])
    ext = tmp_path / "shout.py"
    ext.write_text(
        "from typing import ClassVar\n"
        "from auger.llm.records import Record\n\n"
        "class Shout(Record, frozen=True):\n"
        "    type: ClassVar[str] = 'shout'\n"
        "    text: str\n\n"
        "def extension(g):\n"
        "    g.on('turn_start', lambda e: g.emit(Shout(e.text)))\n"
    )
    result = project.run("-p", "--json", "--extension", str(ext), "hey")
    assert result.returncode == 0, result.stderr
    assert {"type": "shout", "text": "hey"} in json_lines(result.stdout)


async def test_a_tool_registered_after_loading_is_live(tmp_path: Path) -> None:
    from auger.tools.base import tool

    keep: dict[str, Any] = {}

    @tool
    def late(text: str) -> str:
        """Added later."""
        return text

    rt = make_runtime(
        tmp_path,
        ScriptedProvider(),
        extensions=[("early", lambda g: keep.setdefault("g", g)), ("other", lambda g: None)],
    )
    keep["g"].tool(late)
    assert "late" in rt.tools


async def test_a_handler_registered_after_loading_runs(tmp_path: Path) -> None:
    seen: list[str] = []

    def late(g: Any) -> None:
        def first_turn(event: Any) -> None:
            # registered while running, long after `extension(g)` returned
            g.on("turn_end", lambda e: seen.append(f"turn_end {e.text}"))
            g.on("agent_end", lambda e: seen.append("agent_end"))

        g.on("turn_start", first_turn)

    rt = make_runtime(tmp_path, ScriptedProvider([Reply.of("one")]), extensions=[late])
    await collect(rt, "go")
    assert seen == ["agent_end", "turn_end one"]


async def test_a_tool_registered_after_loading_can_be_called(tmp_path: Path) -> None:
    from auger.llm.scripted import Call
    from auger.records import AfterToolCall

    def late(g: Any) -> None:
        def ping() -> str:
            """Answer pong."""
            return "pong"

        g.on("turn_start", lambda e: g.tool(ping))

    provider = ScriptedProvider([Reply.of(Call("ping", {})), Reply.of("done")])
    rt = make_runtime(tmp_path, provider, extensions=[late])
    records = await collect(rt, "go")
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert (after.tool, after.result.content) == ("ping", "pong")
