"""Tool loops through `auger -p --json` against the strict stand-in (tests/support/strict.py)
for what providers refuse today: DeepSeek's `reasoning_content` on every tool-call turn
(https://api-docs.deepseek.com/guides/thinking_mode), Claude models missing from the catalog
(https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking), repeated tool-call
ids, and the Responses `phase` of assistant messages
(https://platform.openai.com/docs/api-reference/responses/object)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.server import FakeServer, Reply, sse
from support.strict import Step, StrictServer

READ = Step(tool="read", arguments='{"path": "notes.txt"}')


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    (project.root / "notes.txt").write_text("hello from notes\n")
    project.env["LOCAL_KEY"] = "sk-local-test"
    return project


def provider(server: StrictServer, *models: str, **extra: Any) -> dict[str, Any]:
    """A provider entry reaching `server`, declaring `models` as reasoning models."""
    base = server.url if server.api == "messages" else f"{server.url}/v1"
    declared = {name: {"reasoning": True} for name in models}
    return {"api": server.api, "base_url": base, "api_key_env": "LOCAL_KEY", "models": declared}


def configure(project: Project, model: str, providers: dict[str, Any]) -> None:
    project.settings({"model": model, "providers": providers, "retry": {"base_delay": 0.01}})


def run(project: Project, *args: str) -> list[dict[str, Any]]:
    result = project.run("-p", "--json", "--reasoning", "medium", *args)
    assert result.returncode == 0, result.stderr + result.stdout[-2000:]
    return json_lines(result.stdout)


def assistants(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


@pytest.mark.slow
def test_a_deepseek_loop_with_an_empty_reasoning_step_is_never_refused(project: Project) -> None:
    steps = [Step(tool="read", arguments='{"path": "notes.txt"}', think=False), READ, Step("Done.")]
    with StrictServer("chat-completions", [*steps, Step("Again.")], rules="deepseek") as server:
        configure(project, "ds/deepseek-v4-pro", {"ds": provider(server, "deepseek-v4-pro")})
        run(project, "read notes.txt twice")
        run(project, "-c", "once more")
        assert server.violations == []
        assert len(server.requests) == 4
        last = server.requests[-1].body
    # no compat setting: the model's name says DeepSeek; every assistant message carries it
    assert [m["reasoning_content"] for m in assistants(last)] == ["", "Thinking 2.", "Thinking 3."]
    assert server.returned == [0, 0, 1, 1]


@pytest.mark.slow
def test_a_switch_from_anthropic_to_deepseek_mid_session(project: Project) -> None:
    with (
        StrictServer("messages", [READ, Step("Read it.")]) as claude,
        StrictServer("chat-completions", [READ, Step("Me too.")], rules="deepseek") as deepseek,
    ):
        providers = {
            "claude": provider(claude, "claude-sonnet-5-5"),
            "ds": provider(deepseek, "deepseek-v4-flash"),
        }
        configure(project, "claude/claude-sonnet-5-5", providers)
        run(project, "read notes.txt")
        run(project, "-c", "--model", "ds/deepseek-v4-flash", "and read it again")
        assert claude.violations == [] and deepseek.violations == []
        assert len(deepseek.requests) == 2
        last = deepseek.requests[-1].body
    # Claude's thinking is not DeepSeek's: its turns go back with an empty reasoning_content
    assert [m["reasoning_content"] for m in assistants(last)] == ["", "", "Thinking 1."]


@pytest.mark.slow
def test_deepseek_through_openrouter(project: Project) -> None:
    with StrictServer("chat-completions", [READ, READ, Step("Done.")], rules="deepseek") as server:
        project.env["OPENROUTER_BASE_URL"] = f"{server.url}/v1"
        project.env["OPENROUTER_API_KEY"] = "sk-or-test"
        project.settings({"model": "openrouter/deepseek/deepseek-v4-pro"})
        run(project, "read notes.txt twice")
        assert server.violations == []
        assert server.returned == [0, 1, 2]
        assert server.requests[0].body["model"] == "deepseek/deepseek-v4-pro"


@pytest.mark.slow
def test_an_unlisted_adaptive_only_claude_model(project: Project) -> None:
    with StrictServer("messages", [READ, Step("Read it.")], rules="adaptive-only") as server:
        project.env["ANTHROPIC_BASE_URL"] = server.url
        project.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
        project.settings({"model": "anthropic/claude-opus-4-7", "retry": {"base_delay": 0.01}})
        run(project, "read notes.txt")
        assert server.violations == []
        thinking = [r.body["thinking"]["type"] for r in server.requests]
    assert thinking == ["adaptive", "adaptive"]
    assert server.returned == [0, 1]


@pytest.mark.slow
def test_a_claude_model_the_rule_misses_is_asked_again_as_adaptive_once(
    project: Project,
) -> None:
    steps = [READ, READ, Step("Read it.")]
    with StrictServer("messages", steps, rules="adaptive-only") as server:
        configure(project, "c/claude-next", {"c": provider(server, "claude-next")})
        records = run(project, "read notes.txt twice")
        thinking = [r.body["thinking"]["type"] for r in server.requests]
    # refused once, then adaptive for the rest of the session: the turn did not fail
    assert thinking == ["enabled", "adaptive", "adaptive", "adaptive"]
    assert len(server.violations) == 1
    assert records[-1]["stop_reason"] == "completed"


CASES = [("messages", ""), ("responses", ""), ("chat-completions", "")]


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=[a for a, _ in CASES])
def test_duplicate_tool_call_ids_are_made_unique(project: Project, api: str, rules: str) -> None:
    twice = Step(tool="read", arguments='{"path": "notes.txt"}', calls=2, same_id=True)
    with StrictServer(api, [twice, Step("Both read."), Step("Again.")], rules=rules) as server:
        configure(project, "local/m", {"local": provider(server, "m")})
        records = run(project, "read notes.txt twice")
        run(project, "-c", "once more")
        assert server.violations == []
        assert len(server.requests) == 3
        last = json.dumps(server.requests[-1].body)
    calls = [r["call_id"] for r in records if r["type"] == "tool_call_done"]
    assert len(calls) == 2 and len(set(calls)) == 2
    assert last.count("hello from notes") == 2  # each result answers its own call


@pytest.mark.slow
def test_a_phase_carrying_responses_loop_echoes_every_phase(project: Project) -> None:
    steps = [
        Step("I will read the notes.", tool="read", arguments='{"path": "notes.txt"}'),
        Step("I will read them again.", tool="read", arguments='{"path": "notes.txt"}'),
        Step("The notes say hello."),
        Step("Still hello."),
    ]
    with StrictServer("responses", steps, rules="phase") as server:
        configure(project, "local/gpt-next", {"local": provider(server, "gpt-next")})
        run(project, "read notes.txt twice")
        run(project, "-c", "and now?")
        assert server.violations == []
        phases = [
            [i.get("phase") for i in r.body["input"] if i.get("role") == "assistant"]
            for r in server.requests
        ]
    assert phases == [
        [],
        ["commentary"],
        ["commentary", "commentary"],
        ["commentary", "commentary", "final_answer"],
    ]


@pytest.mark.parametrize("api", ["messages", "responses", "chat-completions"])
def test_wrong_typed_usage_is_a_bad_response(project: Project, api: str) -> None:
    bad = {"prompt_tokens": "10", "completion_tokens": "x"}
    replies = {
        "chat-completions": sse(
            {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]},
            {"choices": [], "usage": bad},
            done=True,
        ),
        "messages": sse(
            (
                "message_start",
                {"type": "message_start", "message": {"usage": bad | {"input_tokens": "10"}}},
            ),
            ("message_stop", {"type": "message_stop"}),
        ),
        "responses": sse(
            (
                "response.completed",
                {"type": "response.completed", "response": {"usage": {"input_tokens": "10"}}},
            ),
        ),
    }
    with FakeServer() as server:
        server.queue(Reply(body=replies[api]))
        base = server.url if api == "messages" else f"{server.url}/v1"
        configure(project, "local/m", {"local": {"api": api, "base_url": base, "api_key": "k"}})
        result = project.run("-p", "--json", "hi")
    records = json_lines(result.stdout)
    errors = [r for r in records if r.get("type") == "error" or r.get("level") == "error"]
    assert result.returncode == 1
    assert "internal error" not in result.stdout + result.stderr
    assert "not what the API promises" in result.stderr + result.stdout
    assert errors, records[-3:]
