"""Commands through the Runtime API and through `auger -p`."""

from __future__ import annotations

from pathlib import Path

from auger.engine.context import Context
from auger.events import Input
from auger.llm.scripted import Reply, ScriptedProvider
from auger.records import CommandOutput, Notify
from auger.tools import bash
from support.cli import Project, json_lines
from support.runtime import make_runtime


def commands(g) -> None:  # type: ignore[no-untyped-def]
    async def hello(ctx: Context) -> None:
        await ctx.say(f"hello {ctx.args}")

    async def ask(ctx: Context) -> None:
        answer = await ctx.ask("Pick a colour", options=["red", "blue"])
        confirmed = await ctx.confirm("Sure?")
        await ctx.say(f"answer={answer} confirmed={confirmed}")

    def broken(ctx: Context) -> None:
        raise RuntimeError("it broke")

    async def twice(ctx: Context) -> None:
        await ctx.prompt("first")
        await ctx.prompt("second")

    g.command("hello", hello, "say hello")
    g.command("ask", ask)
    g.command("broken", broken)
    g.command("twice", twice)


async def run(rt, name: str, args: str = "") -> list:  # type: ignore[no-untyped-def]
    return [r async for r in rt.run_command(name, args)]


async def test_say_streams_command_output_then_turn_end(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[commands])
    records = await run(rt, "hello", "world")
    outputs = [r for r in records if isinstance(r, CommandOutput)]
    assert [(o.command, o.text) for o in outputs] == [("hello", "hello world")]
    assert records[-1].type == "turn_end" and records[-1].stop_reason == "completed"


async def test_a_command_that_asks_on_a_host_that_cannot_ask(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[commands])
    records = await run(rt, "ask")
    assert any(getattr(r, "text", "") == "answer=None confirmed=False" for r in records)


async def test_unknown_and_failing_commands(tmp_path: Path) -> None:
    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[commands])
    unknown = await run(rt, "nope")
    assert any(isinstance(r, Notify) and r.message == "Unknown command: /nope" for r in unknown)
    assert unknown[-1].stop_reason == "error"
    failed = await run(rt, "broken")
    assert any(
        isinstance(r, Notify) and r.message == "Command broken failed: it broke" for r in failed
    )
    assert failed[-1].stop_reason == "error"


async def test_ctx_prompt_runs_turns_inside_the_command(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("one"), Reply.of("two")])
    rt = make_runtime(tmp_path, provider, extensions=[commands])
    records = await run(rt, "twice")
    assert [r.text for r in records if r.type == "turn_end"] == ["one", "two"]


async def test_submit_fires_input_which_may_replace_or_swallow(tmp_path: Path) -> None:
    seen: list[str] = []

    def ext(g) -> None:  # type: ignore[no-untyped-def]
        def on_input(e: Input) -> object:
            seen.append(e.text)
            if e.text == "secret":
                return False
            return "/hello replaced" if e.text == "hi" else None

        g.on("input", on_input)
        commands(g)

    rt = make_runtime(tmp_path, ScriptedProvider(), extensions=[ext])
    replaced = [r async for r in rt.submit("hi")]
    assert any(getattr(r, "text", None) == "hello replaced" for r in replaced)
    swallowed = [r async for r in rt.submit("secret")]
    assert [r.type for r in swallowed] == ["turn_end"]
    assert seen == ["hi", "secret"]


async def test_bang_runs_a_shell_command_and_fires_user_bash(tmp_path: Path) -> None:
    seen: list[str] = []
    rt = make_runtime(
        tmp_path,
        ScriptedProvider(),
        extensions=[bash.extension, lambda g: g.on("user_bash", lambda e: seen.append(e.command))],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    records = [r async for r in rt.submit("!echo hi there")]
    out = [r for r in records if isinstance(r, CommandOutput)]
    assert seen == ["echo hi there"]
    assert out and out[0].command == "!echo hi there" and "hi there" in out[0].text
    assert "hi there" in rt.messages[-1].text


async def test_model_command_switches_and_fires_model_select(tmp_path: Path) -> None:
    seen: list[str] = []
    settings = {"providers": {"other": {"api": "scripted", "script": str(tmp_path / "s.json")}}}
    (tmp_path / "s.json").write_text('["from other"]')
    rt = make_runtime(
        tmp_path,
        ScriptedProvider(),
        bundled=True,
        extensions=[lambda g: g.on("model_select", lambda e: seen.append(e.model))],
        settings=settings,
    )
    await run(rt, "model", "other/m1")
    assert rt.model.id == "other/m1" and seen == ["other/m1"]
    answer = await rt.ask("hi")
    assert answer.text == "from other"


def test_print_mode_runs_a_leading_slash_as_a_command(tmp_path: Path) -> None:
    project = Project.make(tmp_path)
    project.script(["reviewed"])
    skill = project.root / ".agents" / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: review\ndescription: review code\n---\nLook closely.\n")
    result = project.run("-p", "--json", "/skill:review src/")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stdout)
    assert {"type": "skill_activated", "name": "review"} in records
    assert records[-1]["text"] == "reviewed"
    typo = project.run("-p", "/skill:reveiw src/")
    assert typo.returncode == 2
    assert typo.stderr == "auger: unknown command /skill:reveiw — did you mean /skill:review?\n"


def test_print_mode_sends_a_leading_slash_that_names_no_command_as_a_prompt(
    tmp_path: Path,
) -> None:
    project = Project.make(tmp_path)
    project.script(["clean it up"])
    result = project.run("-p", "--json", stdin="/usr/bin is full\n")
    assert result.returncode == 0, result.stderr
    assert json_lines(result.stdout)[-1]["text"] == "clean it up"
    assert "Unknown command" not in result.stderr


async def test_a_command_reaches_the_session_through_controls_not_the_runtime(
    tmp_path: Path,
) -> None:
    seen: list[object] = []

    def extension(g) -> None:  # type: ignore[no-untyped-def]
        async def rename(ctx: Context) -> None:
            seen.append(ctx.controls)
            ctx.controls.set_name(ctx.args)
            await ctx.say(f"{ctx.controls.session_id}: {ctx.controls.model.id}")

        g.command("rename", rename)

    rt = make_runtime(tmp_path, ScriptedProvider([]), extensions=[extension])
    out = [r for r in await run(rt, "rename", "mine") if isinstance(r, CommandOutput)]
    assert out[0].text == f"{rt.session_id}: {rt.model.id}"
    assert rt.session.name == "mine"
    assert seen and seen[0] is not rt and not hasattr(seen[0], "history")  # the Engine's
    await rt.close()
