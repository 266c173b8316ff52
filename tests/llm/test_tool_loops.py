"""Multi-step tool loops through `auger -p --json` against a server that enforces each format's
documented rules (tests/support/strict.py): no 400, no lost reasoning, across a malformed tool
call, an edited AGENTS.md and a model switch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli import Project, json_lines
from support.server import FakeServer, Reply
from support.strict import Step, StrictServer

LOOP = [
    Step(tool="read", arguments='{"path": "notes.txt"}'),
    Step(tool="read", arguments='{"path": "notes.txt"'),  # cut short: not JSON
    Step(text="The file says hello."),
]
CASES = [
    ("messages", ""),
    ("responses", ""),
    ("chat-completions", "deepseek"),
    ("chat-completions", "gemini"),
    ("chat-completions", "openai"),
]
IDS = [f"{a}-{r}" for a, r in CASES]
_COMPAT = {
    "deepseek": {"reasoning_content": True},
    "openai": {"max_tokens_field": "max_completion_tokens"},
}


def configure(project: Project, server: StrictServer) -> None:
    base = server.url if server.api == "messages" else f"{server.url}/v1"
    models = {name: {"reasoning": True} for name in ("test-model", "other-model")}
    provider: dict[str, Any] = {"api": server.api, "base_url": base, "api_key_env": "LOCAL_KEY"}
    provider |= {"models": models, "compat": _COMPAT.get(server.rules, {})}
    project.settings(
        {
            "model": "local/test-model",
            "providers": {"local": provider},
            "retry": {"base_delay": 0.01},
        }
    )
    project.env["LOCAL_KEY"] = "sk-local-test"
    (project.root / "notes.txt").write_text("hello from notes\n")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.make(tmp_path)


def _run(project: Project, *args: str) -> list[dict[str, Any]]:
    result = project.run("-p", "--json", "--reasoning", "medium", *args)
    assert result.returncode == 0, result.stderr + result.stdout[-2000:]
    return json_lines(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_a_tool_loop_with_a_malformed_call_keeps_its_reasoning(
    project: Project, api: str, rules: str
) -> None:
    with StrictServer(api, LOOP, rules=rules) as server:
        configure(project, server)
        records = _run(project, "read notes.txt")
        assert server.violations == []
        assert len(server.requests) == 3
        # every reasoning the server needs came back on every later step (OpenAI's needs none)
        assert server.returned == ([0, 0, 0] if rules == "openai" else [0, 1, 2])
        last = json.dumps(server.requests[-1].body)
    assert "hello from notes" in last  # the first call ran
    assert "ERROR: the arguments of read are not valid JSON" in last  # told it was malformed
    assert records[-1]["stop_reason"] == "completed"


# How many issued reasonings come back on each request after one tool step and one answer, for
# the next prompt: Messages and Responses send every turn's; DeepSeek and Gemini the tool calls'.
AGAIN = {
    "messages-": [0, 1, 2],
    "responses-": [0, 1, 2],
    "chat-completions-deepseek": [0, 1, 1],
    "chat-completions-gemini": [0, 1, 1],
    "chat-completions-openai": [0, 0, 0],
}


def system_of(body: dict[str, Any]) -> Any:
    """The system prompt of a request, wherever its API puts it."""
    if "system" in body or "instructions" in body:
        return body.get("system") or body.get("instructions")
    first = (body.get("messages") or [{}])[0]
    return first.get("content") if first.get("role") in ("system", "developer") else None


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers."""
    return [t.get("name") or t["function"]["name"] for t in body.get("tools") or []]


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_an_edited_agents_md_reaches_the_model_and_keeps_the_reasoning(
    project: Project, api: str, rules: str
) -> None:
    with StrictServer(api, [*LOOP[::2], Step(text="Encore.")], rules=rules) as server:
        configure(project, server)
        _run(project, "read notes.txt")
        (project.root / "AGENTS.md").write_text("Answer in French.\n")
        _run(project, "-c", "once more")
        assert server.violations == []
        before, edited = server.requests[1].body, server.requests[2].body
    # AGENTS.md arrives in a new context message; the system prompt and history stay a prefix
    assert "Answer in French." in json.dumps(edited) and "French" not in json.dumps(before)
    assert system_of(edited) == system_of(before) and system_of(before)
    assert server.returned == AGAIN[f"{api}-{rules}"]  # so the saved reasoning is still valid


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_a_model_switch_drops_only_what_cannot_be_sent(
    project: Project, api: str, rules: str
) -> None:
    with StrictServer(api, [*LOOP[::2], Step(text="Switched.")], rules=rules) as server:
        configure(project, server)
        _run(project, "read notes.txt")
        _run(project, "-c", "--model", "local/other-model", "and again")
        assert server.violations == []
        assert [r.body["model"] for r in server.requests] == ["test-model"] * 2 + ["other-model"]
    # signed thinking and encrypted reasoning belong to the model that made them; the
    # unsigned reasoning of Chat Completions servers is still sent where they require it
    signed = api in ("messages", "responses")
    assert server.returned[2:] == ([0] if signed else AGAIN[f"{api}-{rules}"][2:])


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_new_tools_and_a_compaction_drop_only_what_cannot_be_sent(
    project: Project, api: str, rules: str
) -> None:
    steps = [*LOOP[::2], Step(text="Fewer tools."), Step(text="Summary."), Step(text="Compacted.")]
    with StrictServer(api, steps, rules=rules) as server:
        configure(project, server)
        _run(project, "--tools", "read,ls", "read notes.txt")
        _run(project, "-c", "more tools now")  # every bundled tool: the tools changed
        settings = json.loads((project.home / "settings.json").read_text())
        model = settings["providers"]["local"]["models"]["test-model"]
        model["context_window"] = 100_000
        settings["compaction"] = {"reserve_tokens": 99_995, "keep_recent_tokens": 1}
        project.settings(settings)
        records = _run(project, "-c", "and now compact")
        assert server.violations == []
        assert len(server.requests) == 5
    assert any(r["type"] == "compact" for r in records)
    # thinking bound to the old tools or to the compacted history is not sent; the summary
    # request continues the conversation, so it sends back what is still valid (same tools)
    kept = 0 if api in ("messages", "responses") else int(rules != "openai")
    assert server.returned[2:] == [kept, int(rules != "openai"), 0]


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_a_continued_session_sends_back_what_is_still_valid(
    project: Project, api: str, rules: str
) -> None:
    with StrictServer(api, [*LOOP[::2], Step(text="Again.")], rules=rules) as server:
        configure(project, server)
        _run(project, "read notes.txt")
        _run(project, "-c", "once more")  # nothing changed: the saved reasoning is still valid
        assert server.violations == []
        assert server.returned == AGAIN[f"{api}-{rules}"]


def late_server(project: Project, startup_timeout: float) -> None:
    """Declare tests/support/late_mcp.py, which starts once `go` exists in the project."""
    script = Path(__file__).parents[1] / "support" / "late_mcp.py"
    settings = json.loads((project.home / "settings.json").read_text())
    server = {"command": sys.executable, "args": [str(script), str(project.root)]}
    settings["mcp"] = {
        "slow_start": 0.1,
        "startup_timeout": startup_timeout,
        "servers": {"late": server},
    }
    settings["permissions"] = {"mode": "auto"}  # bash and an MCP tool, without questions
    project.settings(settings)


@pytest.mark.slow
@pytest.mark.parametrize(("api", "rules"), CASES, ids=IDS)
def test_mcp_tools_arriving_mid_session_never_break_the_reasoning(
    project: Project, api: str, rules: str
) -> None:
    wait = "touch go; while [ ! -f listed ]; do sleep 0.05; done; sleep 1"
    steps = [
        Step(tool="bash", arguments=json.dumps({"command": wait})),  # the tools arrive meanwhile
        Step(text="Waited."),
        Step(tool="late__lookup", arguments='{"key": "answer"}'),
        Step(text="Found it."),
    ]
    with StrictServer(api, steps, rules=rules) as server:
        configure(project, server)
        late_server(project, startup_timeout=0.2)
        first = _run(project, "wait for the server")
        late_server(project, startup_timeout=20)
        _run(project, "-c", "now look it up")
        assert server.violations == []
        offered = [tool_names(r.body) for r in server.requests]
        last = json.dumps(server.requests[-1].body)
    assert any("MCP server late is ready" in r.get("message", "") for r in first)
    # the tools stay as they were for the rest of the turn, and join at the next prompt
    assert offered[0] == offered[1] and "late__lookup" not in offered[1]
    assert "late__lookup" in offered[2] and offered[2] == offered[3]
    assert "the value of answer is 42" in last
    # signed and encrypted reasoning is bound to the tools it was made with; DeepSeek's and
    # Gemini's goes back with every tool call
    expected = {
        "messages-": [0, 1, 0, 1],
        "responses-": [0, 1, 0, 1],
        "chat-completions-deepseek": [0, 1, 1, 2],
        "chat-completions-gemini": [0, 1, 1, 2],
        "chat-completions-openai": [0, 0, 0, 0],
    }
    assert server.returned == expected[f"{api}-{rules}"]


def test_the_same_server_error_twice_is_not_tried_a_third_time(project: Project) -> None:
    broken = json.dumps({"error": {"message": "Failed to parse tool call arguments as JSON"}})
    with FakeServer() as server:
        server.queue(*[Reply(500, broken.encode()) for _ in range(3)])
        project.settings(
            {
                "model": "local/m",
                "providers": {"local": {"api": "chat-completions", "base_url": server.url + "/v1"}},
                "retry": {"base_delay": 0.01},
            }
        )
        result = project.run("-p", "hi")
        assert len(server.requests) == 2
    assert result.returncode == 1
    assert "the same answer to the same request twice" in result.stderr
