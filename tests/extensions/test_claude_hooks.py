"""Claude Code–compatible command hooks: real shell hooks driven through a Runtime."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from auger.extensions.claude_format import from_claude_input, matches, to_claude_input
from auger.extensions.claude_hooks import extension
from auger.host import Host
from auger.llm.messages import AssistantMessage, TextPart, UserMessage
from auger.llm.records import Record
from auger.llm.scripted import Call, Delay, Reply, ScriptedProvider
from auger.records import AfterToolCall, Notify, TurnEnd
from auger.runtime import Runtime
from auger.session.entries import MessageEntry
from auger.tools.base import tool
from support.hosts import Answering
from support.runtime import collect


@tool
def bash(command: str) -> str:
    """Pretend to run a command."""
    return f"ran: {command}"


@tool
def write(path: str, content: str) -> str:
    """Pretend to write a file."""
    return f"wrote {path}"


@tool
def echo(text: str) -> str:
    """Say it back."""
    return f"echo: {text}"


def tools_extension(g: Any) -> None:
    for t in (bash, write, echo):
        g.tool(t)


def hooks_runtime(
    tmp_path: Path,
    provider: ScriptedProvider,
    hooks: dict[str, Any],
    host: Host | None = None,
) -> Runtime:
    """A Runtime with only the test tools and the hooks extension, configured with `hooks`."""
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "project").mkdir(exist_ok=True)
    return Runtime(
        provider=provider,
        env={},
        home=tmp_path / "home",
        cwd=tmp_path / "project",
        settings={"hooks": hooks, "compaction": {"keep_recent_tokens": 10}},
        bundled=False,
        extensions=[tools_extension, ("claude_hooks", extension)],
        host=host,
    )


def on(event: str, command: str, matcher: str | None = None, **options: Any) -> dict[str, Any]:
    """The settings of one command hook for `event`."""
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **options}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


def json_out(value: dict[str, Any]) -> str:
    """A command that prints `value` as JSON."""
    return f"printf '%s' '{json.dumps(value)}'"


def pre(decision: dict[str, Any]) -> str:
    """A command that answers PreToolUse with `decision` as its hookSpecificOutput."""
    return json_out({"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}})


def notices(records: list[Record]) -> list[str]:
    return [r.message for r in records if isinstance(r, Notify)]


def results(records: list[Record]) -> list[AfterToolCall]:
    return [r for r in records if isinstance(r, AfterToolCall)]


def told(provider: ScriptedProvider) -> str:
    """What the model was told last, in its second request."""
    return provider.requests[1].messages[-1].text


def bash_turn(command: str = "ls") -> ScriptedProvider:
    return ScriptedProvider([Reply.of(Call("bash", {"command": command}, "c1")), Reply.of("ok")])


# -- PreToolUse ---------------------------------------------------------------------------


async def test_pre_tool_use_sees_claude_code_names_input_and_environment(tmp_path: Path) -> None:
    out = tmp_path
    command = f'cat > {out}/in.json; pwd > {out}/pwd; echo "$CLAUDE_PROJECT_DIR" > {out}/dir'
    rt = hooks_runtime(tmp_path, bash_turn("ls -la"), on("PreToolUse", command, "Bash"))
    records = await collect(rt, "go")
    assert json.loads((tmp_path / "in.json").read_text()) == {
        "session_id": rt.session_id,
        "transcript_path": str(rt.transcript_path),
        "cwd": str(rt.cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "c1",
    }
    assert (tmp_path / "pwd").read_text().strip() == str(rt.cwd)
    assert (tmp_path / "dir").read_text().strip() == str(rt.cwd)
    assert results(records)[0].result.content == "ran: ls -la"


async def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path: Path) -> None:
    provider = bash_turn("rm -rf /")
    command = "echo 'rm is not allowed here' >&2; exit 2"
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", command, "Bash"))
    records = await collect(rt, "go")
    assert "before_tool_call" not in [r.type for r in records]
    assert results(records)[0].result.error_type == "blocked"
    assert told(provider) == "ERROR: rm is not allowed here"


async def test_permission_decision_deny_blocks_with_its_reason(tmp_path: Path) -> None:
    provider = bash_turn()
    deny = pre({"permissionDecision": "deny", "permissionDecisionReason": "not today"})
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", deny, "Bash"))
    await collect(rt, "go")
    assert told(provider) == "ERROR: not today"


async def test_updated_input_rewrites_what_the_tool_runs_with(tmp_path: Path) -> None:
    provider = bash_turn("rm -rf build")
    allow = pre({"permissionDecision": "allow", "updatedInput": {"command": "echo safe"}})
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", allow, "Bash"))
    records = await collect(rt, "go")
    assert results(records)[0].args == {"command": "echo safe"}
    assert told(provider) == "ran: echo safe"


async def test_write_is_shown_as_write_with_an_absolute_file_path(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("write", {"path": "a.txt", "content": "x"}, "c1")), Reply.of("ok")]
    )
    update = {"updatedInput": {"file_path": "b.txt", "content": "y"}}
    command = f"cat > {tmp_path}/in.json; {pre(update)}"
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", command, "Write"))
    records = await collect(rt, "go")
    seen = json.loads((tmp_path / "in.json").read_text())
    assert seen["tool_name"] == "Write"
    assert seen["tool_input"] == {"file_path": str(rt.cwd / "a.txt"), "content": "x"}
    assert results(records)[0].args == {"path": "b.txt", "content": "y"}


async def test_ask_blocks_when_no_one_can_be_asked(tmp_path: Path) -> None:
    provider = bash_turn()
    ask = pre({"permissionDecision": "ask", "permissionDecisionReason": "touches prod"})
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", ask, "Bash"))
    records = await collect(rt, "go")
    assert results(records)[0].result.error_type == "blocked"
    assert told(provider).startswith("ERROR: touches prod")
    assert "no one could be asked" in told(provider)


async def test_ask_runs_the_call_when_the_host_confirms(tmp_path: Path) -> None:
    provider = bash_turn()
    host = Answering(decisions=["allow_once"], capabilities=["permission"])
    ask = pre({"permissionDecision": "ask", "permissionDecisionReason": "touches prod"})
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", ask, "Bash"), host=host)
    await collect(rt, "go")
    assert host.asked == ["Allow Bash? touches prod"]
    assert host.requests[0].options == ("allow_once", "deny")
    assert told(provider) == "ran: ls"


async def test_pre_tool_use_context_reaches_the_result(tmp_path: Path) -> None:
    provider = bash_turn()
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", pre({"additionalContext": "note"})))
    await collect(rt, "go")
    assert told(provider) == "ran: ls\n\nnote"


async def test_continue_false_blocks_the_call_and_stops_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("bash", {"command": "ls"}, "c1")), Reply.of(Delay(5), "never")]
    )
    stop = json_out({"continue": False, "stopReason": "enough for today"})
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", stop))
    records = await collect(rt, "go")
    assert results(records)[0].result.content == "ERROR: enough for today"
    assert "enough for today" in notices(records)
    assert records[-1].stop_reason == "cancelled"


# -- matchers -----------------------------------------------------------------------------


async def test_matchers_select_tools_by_claude_code_name(tmp_path: Path) -> None:
    log = tmp_path / "log"
    record = f"cat >> {log}; echo >> {log}"
    hooks = {
        "PreToolUse": [
            {"matcher": matcher, "hooks": [{"type": "command", "command": f"{record}"}]}
            for matcher in ("Bash|Write", "*", "Read", "^ec")
        ]
    }
    provider = ScriptedProvider(
        [
            Reply.of(
                Call("bash", {"command": "ls"}),
                Call("write", {"path": "f", "content": ""}),
                Call("echo", {"text": "hi"}),
            ),
            Reply.of("ok"),
        ]
    )
    await collect(hooks_runtime(tmp_path, provider, hooks), "go")
    fired = [json.loads(line)["tool_name"] for line in log.read_text().splitlines()]
    # Bash|Write and * for Bash and Write; * and the regex ^ec for echo; Read never
    assert fired == ["Bash", "Bash", "Write", "Write", "echo", "echo"]


def test_matcher_rules() -> None:
    assert matches(None, ("Bash",)) and matches("", ("Bash",)) and matches("*", ("Bash",))
    assert matches("Edit|Write", ("Write",)) and not matches("Edit|Write", ("WriteAll",))
    assert matches("mcp__.*", ("mcp__memory__save",)) and not matches("mcp__.*", ("Bash",))
    assert matches("Bash", ("Bash", "bash")) and not matches("Bash", ("BashOutput",))


def test_arguments_map_both_ways() -> None:
    cwd = Path("/p")
    shown = to_claude_input("grep", {"pattern": "x", "ignore_case": True, "path": "src"}, cwd)
    assert shown == {"pattern": "x", "-i": True, "path": "/p/src"}
    back = from_claude_input("grep", shown)
    assert back == {"pattern": "x", "ignore_case": True, "path": "/p/src"}
    assert to_claude_input("mcp__x__y", {"path": "a"}, cwd) == {"path": "a"}


# -- failures -----------------------------------------------------------------------------


def _alive_in_group(pgid: int) -> list[int]:
    """Processes of group `pgid` that are still running (zombies count as gone)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(stat.parent.name))
    return alive


async def test_a_hook_that_hangs_is_killed_reported_and_lets_the_call_through(
    tmp_path: Path,
) -> None:
    provider = bash_turn()
    command = f"echo $$ > {tmp_path}/pid; sleep 30"
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", command, "Bash", timeout=1))
    records = await collect(rt, "go")
    assert f"PreToolUse hook {command} timed out after 1s" in notices(records)
    assert told(provider) == "ran: ls"
    assert _alive_in_group(int((tmp_path / "pid").read_text())) == []


async def test_another_non_zero_exit_is_reported_and_does_not_block(tmp_path: Path) -> None:
    provider = bash_turn()
    rt = hooks_runtime(tmp_path, provider, on("PreToolUse", "echo oops >&2; exit 1", "Bash"))
    records = await collect(rt, "go")
    assert "PreToolUse hook echo oops >&2; exit 1 failed with exit code 1: oops" in notices(records)
    assert told(provider) == "ran: ls"


async def test_the_first_block_wins_and_later_hooks_do_not_run(tmp_path: Path) -> None:
    provider = bash_turn()
    hooks = {
        "PreToolUse": [
            {"hooks": [{"command": "echo first >&2; exit 2"}]},
            {"hooks": [{"command": f"touch {tmp_path}/second"}]},
        ]
    }
    await collect(hooks_runtime(tmp_path, provider, hooks), "go")
    assert told(provider) == "ERROR: first"
    assert not (tmp_path / "second").exists()


# -- PostToolUse --------------------------------------------------------------------------


async def test_post_tool_use_sees_the_response_and_replaces_it(tmp_path: Path) -> None:
    provider = bash_turn()
    replace = json_out({"hookSpecificOutput": {"updatedToolOutput": "[redacted]"}})
    command = f"cat > {tmp_path}/in.json; {replace}"
    rt = hooks_runtime(tmp_path, provider, on("PostToolUse", command, "Bash"))
    records = await collect(rt, "go")
    seen = json.loads((tmp_path / "in.json").read_text())
    assert seen["hook_event_name"] == "PostToolUse"
    assert (seen["tool_name"], seen["tool_input"]) == ("Bash", {"command": "ls"})
    bash_response = {"stdout": "ran: ls", "stderr": "", "interrupted": False, "isImage": False}
    assert (seen["tool_response"], seen["tool_use_id"]) == (bash_response, "c1")
    assert results(records)[0].result.content == "[redacted]"
    assert told(provider) == "[redacted]"


async def test_post_tool_use_context_and_block_reason_follow_the_output(tmp_path: Path) -> None:
    provider = bash_turn()
    context = json_out({"hookSpecificOutput": {"additionalContext": "lint is clean"}})
    block = json_out({"decision": "block", "reason": "but tests fail"})
    hooks = {"PostToolUse": [{"hooks": [{"command": context}, {"command": block}]}]}
    await collect(hooks_runtime(tmp_path, provider, hooks), "go")
    assert told(provider) == "ran: ls\n\nlint is clean\n\nbut tests fail"


# -- UserPromptSubmit, Stop, sessions, PreCompact ----------------------------------------


async def test_user_prompt_submit_block_cancels_the_turn(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("never")])
    command = f"cat > {tmp_path}/in.json; echo 'no secrets in prompts' >&2; exit 2"
    rt = hooks_runtime(tmp_path, provider, on("UserPromptSubmit", command))
    records = await collect(rt, "my password is hunter2")
    end = records[-1]
    assert isinstance(end, TurnEnd) and end.stop_reason == "guardrail_blocked"
    assert provider.requests == []
    assert any("no secrets in prompts" in n for n in notices(records))
    seen = json.loads((tmp_path / "in.json").read_text())
    assert seen["hook_event_name"] == "UserPromptSubmit"
    assert seen["prompt"] == "my password is hunter2"


async def test_user_prompt_submit_context_reaches_the_model(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("ok")])
    context = json_out({"hookSpecificOutput": {"additionalContext": "branch: main"}})
    hooks = {"UserPromptSubmit": [{"hooks": [{"command": context}, {"command": "echo plain"}]}]}
    await collect(hooks_runtime(tmp_path, provider, hooks), "hello")
    assert provider.requests[0].messages[-1].text == "hello\n\nbranch: main\n\nplain"


async def test_stop_session_start_and_session_end_payloads(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of("all done")])
    hooks = {
        **on("SessionStart", f"cat > {tmp_path}/start.json; echo 'remember the rules'", "startup"),
        **on("Stop", f"cat > {tmp_path}/stop.json"),
        **on("SessionEnd", f"cat > {tmp_path}/end.json"),
    }
    rt = hooks_runtime(tmp_path, provider, hooks)
    await collect(rt, "hi")
    await rt.close()
    start = json.loads((tmp_path / "start.json").read_text())
    stop = json.loads((tmp_path / "stop.json").read_text())
    end = json.loads((tmp_path / "end.json").read_text())
    assert (start["hook_event_name"], start["source"]) == ("SessionStart", "startup")
    assert start["session_id"] == rt.session_id and start["cwd"] == str(rt.cwd)
    assert provider.requests[0].messages[-1].text == "hi\n\nremember the rules"
    assert stop["hook_event_name"] == "Stop"
    assert (stop["stop_hook_active"], stop["last_assistant_message"]) == (False, "all done")
    assert (end["hook_event_name"], end["reason"]) == ("SessionEnd", "prompt_input_exit")


async def test_pre_compact_sees_the_trigger_and_can_cancel(tmp_path: Path) -> None:
    command = f"cat > {tmp_path}/in.json; echo 'not now' >&2; exit 2"
    rt = hooks_runtime(tmp_path, ScriptedProvider(), on("PreCompact", command, "manual"))
    for text in ("one", "two"):
        rt.session.append(MessageEntry(UserMessage.of(text * 50)))
        rt.session.append(MessageEntry(AssistantMessage((TextPart(text * 50),))))
    assert not await rt.compact("keep the plan")
    seen = json.loads((tmp_path / "in.json").read_text())
    assert seen["hook_event_name"] == "PreCompact"
    assert (seen["trigger"], seen["custom_instructions"]) == ("manual", "keep the plan")


async def test_without_hooks_nothing_changes(tmp_path: Path) -> None:
    provider = bash_turn()
    records = await collect(hooks_runtime(tmp_path, provider, {}), "go")
    assert told(provider) == "ran: ls"
    assert notices(records) == []


def test_bash_timeouts_are_milliseconds_for_claude_code() -> None:
    from auger.extensions.claude_format import from_claude_input, to_claude_input

    shown = to_claude_input("bash", {"command": "make", "timeout": 30}, Path("/p"))
    assert shown == {"command": "make", "timeout": 30000}
    assert from_claude_input("bash", {"command": "make", "timeout": 5000}) == {
        "command": "make",
        "timeout": 5.0,
    }


@pytest.mark.slow
async def test_a_flood_of_hook_output_is_capped_in_memory_and_for_the_model(
    tmp_path: Path,
) -> None:
    import tracemalloc

    provider = ScriptedProvider([Reply.of("ok")])
    flood = "head -c 300000000 /dev/zero | tr '\\0' 'x'"  # 300 MB on stdout
    tracemalloc.start()
    try:
        await collect(hooks_runtime(tmp_path, provider, on("UserPromptSubmit", flood)), "hi")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    sent = provider.requests[0].messages[-1].text
    assert sent.startswith("hi\n\n" + "x" * 10_000 + "… [hook output truncated: ")
    assert len(sent) < 10_100
    assert peak < 20_000_000, peak


async def test_a_sub_agent_ends_with_subagent_stop_naming_it(tmp_path: Path) -> None:
    from auger.extensions.subagents import extension as subagents
    from auger.llm.scripted import Call

    provider = ScriptedProvider(
        [Reply.of(Call("task", {"tasks": [{"prompt": "look"}]})), "child done", "parent done"]
    )
    hooks = {
        **on("Stop", f"cat >> {tmp_path}/stop.jsonl; echo >> {tmp_path}/stop.jsonl"),
        **on("SubagentStop", f"cat > {tmp_path}/subagent.json"),
    }
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    rt = Runtime(
        provider=provider,
        env={},
        home=tmp_path / "home",
        cwd=tmp_path / "project",
        settings={"hooks": hooks},
        bundled=False,
        extensions=[tools_extension, ("subagents", subagents), ("claude_hooks", extension)],
    )
    records = await collect(rt, "delegate")
    [start] = [r for r in records if r.type == "subagent_start"]
    child = json.loads((tmp_path / "subagent.json").read_text())
    assert child["hook_event_name"] == "SubagentStop"
    assert (child["agent_id"], child["agent_type"]) == (start.agent_id, "general")
    assert child["last_assistant_message"] == "child done"
    stops = [json.loads(line) for line in (tmp_path / "stop.jsonl").read_text().split("\n") if line]
    assert [s["last_assistant_message"] for s in stops] == ["parent done"]
    assert "agent_id" not in stops[0]
