"""The native Gemini API: samples built from the official reference and guides, through the
parser and the request builder of the next step.

- https://ai.google.dev/api/generate-content (streamGenerateContent, FinishReason, UsageMetadata)
- https://ai.google.dev/gemini-api/docs/function-calling (parallel function calling)
- https://ai.google.dev/gemini-api/docs/thought-signatures (where signatures ride, and go back)
- https://ai.google.dev/gemini-api/docs/thinking (thinkingConfig, includeThoughts)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from auger.llm import gemini
from auger.llm.errors import ProviderError
from auger.llm.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.provider import Model, Request, ToolSpec
from auger.llm.records import (
    FinishReasonDone,
    ProviderDataDone,
    ReasoningDone,
    Record,
    TextDone,
    TokenUsageDone,
    ToolCallDone,
)
from auger.llm.usage import Usage
from support.cli import Project, json_lines
from support.gemini import PATH, GeminiServer, GeminiStep
from support.server import FakeServer, Reply, sse
from support.strict import Step
from support.wire import stream

FLASH = Model("test", "gemini-3.8-flash", "gemini", max_output=65536, reasoning=True)
PARTY = UserMessage.of("Turn this place into a party!")
SIG = "CiQB4/H/Xh2kG9dPjKq1GZ0="


def _reply(records: list[Record]) -> AssistantMessage:
    content: list[Any] = []
    for r in records:
        if isinstance(r, TextDone):
            content.append(TextPart(r.content))
        elif isinstance(r, ReasoningDone):
            content.append(ReasoningPart(r.content))
        elif isinstance(r, ProviderDataDone):
            content.append(r.part)
        elif isinstance(r, ToolCallDone):
            content.append(ToolCall(r.call_id, r.name, r.arguments))
    return AssistantMessage(tuple(content), provider="test", model=FLASH.name, api="gemini")


def _chunk(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], **extra}


async def _stream(body: bytes, request: Request, status: int = 200) -> tuple[list[Record], Any]:
    with FakeServer() as server:
        server.queue(Reply(status, body))
        records = await stream(server, "gemini", request)
        return records, server.requests[0]


# The parallel example of the function-calling guide, as Gemini 3 streams it: a signature on
# the first call only, the usage counts of the reference's UsageMetadata.
PARALLEL = sse(
    _chunk({"text": "The user wants a party: lights, music, disco ball.", "thought": True}),
    _chunk(
        {
            "functionCall": {"name": "power_disco_ball", "args": {"power": True}},
            "thoughtSignature": SIG,
        },
        {"functionCall": {"name": "start_music", "args": {"energetic": True, "loud": True}}},
        {"functionCall": {"name": "dim_lights", "args": {"brightness": 0.5}}},
        finish="STOP",
        usageMetadata={
            "promptTokenCount": 1200,
            "cachedContentTokenCount": 1024,
            "candidatesTokenCount": 40,
            "thoughtsTokenCount": 90,
            "totalTokenCount": 1330,
        },
    ),
)


async def test_parallel_calls_arrive_with_their_usage_and_stop_for_tools() -> None:
    records, seen = await _stream(PARALLEL, Request(FLASH, "", (PARTY,), reasoning="low"))
    calls = [r for r in records if isinstance(r, ToolCallDone)]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("power_disco_ball", {"power": True}),
        ("start_music", {"energetic": True, "loud": True}),
        ("dim_lights", {"brightness": 0.5}),
    ]
    assert len({c.call_id for c in calls}) == 3  # the API sent no ids: each gets its own
    assert records[-2] == TokenUsageDone(Usage(1200, 130, 1024))
    assert records[-1] == FinishReasonDone("tool_calls", "STOP")
    assert seen.path == "/v1/models/gemini-3.8-flash:streamGenerateContent?alt=sse"
    assert seen.headers["x-goog-api-key"] == "sk-test"
    assert seen.body["generationConfig"]["thinkingConfig"] == {
        "thinkingLevel": "low",
        "includeThoughts": True,
    }


async def test_the_signature_goes_back_on_the_first_of_parallel_calls_only() -> None:
    records, _ = await _stream(PARALLEL, Request(FLASH, "", (PARTY,)))
    reply = _reply(records)
    results = [ToolResultMessage(c.call_id, c.name, (TextPart("ok"),)) for c in reply.tool_calls]
    history: tuple[Message, ...] = (PARTY, reply, *results)
    body = gemini.request_body(Request(FLASH, "", history))
    model, answers = body["contents"][1], body["contents"][2]
    assert model["role"] == "model"
    assert [p.get("thoughtSignature") for p in model["parts"]] == [SIG, None, None]
    assert [p["functionCall"]["name"] for p in model["parts"]] == [
        "power_disco_ball",
        "start_music",
        "dim_lights",
    ]
    assert all("id" not in p["functionCall"] for p in model["parts"])  # none was issued
    assert answers == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": c.name, "response": {"output": "ok"}}}
            for c in reply.tool_calls
        ],
    }


async def test_a_text_answer_keeps_the_signature_of_its_last_empty_part() -> None:
    body = sse(
        _chunk({"text": "Paris is "}),
        _chunk({"text": "sunny."}),
        _chunk({"text": "", "thoughtSignature": SIG}, finish="STOP"),
    )
    records, _ = await _stream(body, Request(FLASH, "", (PARTY,)))
    assert TextDone("Paris is sunny.") in records
    history = (PARTY, _reply(records), UserMessage.of("And tomorrow?"))
    sent = gemini.request_body(Request(FLASH, "", history))["contents"]
    assert sent[1] == {
        "role": "model",
        "parts": [{"text": "Paris is sunny.", "thoughtSignature": SIG}],
    }


async def test_a_signature_bound_to_another_system_prompt_is_not_sent() -> None:
    records, _ = await _stream(PARALLEL, Request(FLASH, "Be brief.", (PARTY,)))
    reply = _reply(records)
    results = [ToolResultMessage(c.call_id, c.name, (TextPart("ok"),)) for c in reply.tool_calls]
    edited = Request(FLASH, "Be verbose.", (PARTY, reply, *results))
    parts = gemini.request_body(edited)["contents"][1]["parts"]
    # the real one is bound to the old prompt: the first call says its signature is gone
    assert [p.get("thoughtSignature") for p in parts] == [gemini._UNSIGNED, None, None]


async def test_thoughts_stream_as_reasoning_and_are_not_sent_back() -> None:
    body = sse(
        _chunk({"text": "Considering the ", "thought": True}),
        _chunk({"text": "weather.", "thought": True}),
        _chunk({"text": "Sunny."}, finish="STOP"),
    )
    records, _ = await _stream(body, Request(FLASH, "", (PARTY,), reasoning="high"))
    assert ReasoningDone("Considering the weather.") in records
    sent = gemini.request_body(Request(FLASH, "", (PARTY, _reply(records))))["contents"]
    assert sent[1]["parts"] == [{"text": "Sunny."}]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("LANGUAGE", "other"),
    ],
)
async def test_finish_reasons_become_stop_reasons(raw: str, reason: str) -> None:
    records, _ = await _stream(
        sse(_chunk({"text": "Hm"}, finish=raw)), Request(FLASH, "", (PARTY,))
    )
    assert records[-1] == FinishReasonDone(reason, raw)


async def test_a_blocked_prompt_is_a_content_filter_stop() -> None:
    body = sse(
        {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 8}}
    )
    records, _ = await _stream(body, Request(FLASH, "", (PARTY,)))
    assert records[-1] == FinishReasonDone("content_filter", "prompt blocked: SAFETY")
    assert records[-2] == TokenUsageDone(Usage(8, 0, None))


async def test_an_overlong_prompt_is_a_context_overflow_in_gemini_words() -> None:
    message = (
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    )
    error = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    with pytest.raises(ProviderError) as raised:
        await _stream(json.dumps(error).encode(), Request(FLASH, "", (PARTY,)), status=400)
    assert raised.value.kind == "context_overflow"


async def test_a_stream_without_a_finish_reason_is_incomplete() -> None:
    with pytest.raises(ProviderError) as raised:
        await _stream(sse(_chunk({"text": "Par"})), Request(FLASH, "", (PARTY,)))
    assert raised.value.kind == "incomplete"


async def test_an_error_inside_the_stream_is_classified() -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    with pytest.raises(ProviderError) as raised:
        await _stream(sse(_chunk({"text": "Par"}), error), Request(FLASH, "", (PARTY,)))
    assert raised.value.kind == "overloaded" and raised.value.retryable


def test_calls_another_model_made_carry_the_sentinel_that_skips_validation() -> None:
    claude = AssistantMessage(
        (ToolCall("toolu_1", "read", "{}"), ToolCall("toolu_2", "ls", "{}")),
        provider="anthropic",
        model="claude-opus-5-5",
        api="messages",
    )
    results = [
        ToolResultMessage(f"toolu_{n}", t, (TextPart("ok"),)) for n, t in ((1, "read"), (2, "ls"))
    ]
    parts = gemini.request_body(Request(FLASH, "", (PARTY, claude, *results)))["contents"][1][
        "parts"
    ]
    assert [p.get("thoughtSignature") for p in parts] == ["skip_thought_signature_validator", None]
    assert all("id" not in p["functionCall"] for p in parts)  # another server's ids stay home


def test_the_request_names_the_system_tools_and_budget() -> None:
    tool = ToolSpec(
        "read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    budget = Model("test", "gemini-2.5-pro", "gemini", max_output=8192, thinking="budget")
    body = gemini.request_body(Request(budget, "Be brief.", (PARTY,), (tool,), reasoning="high"))
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "read",
                    "description": "Read a file",
                    "parametersJsonSchema": tool.parameters,
                }
            ]
        }
    ]
    assert body["generationConfig"] == {
        "maxOutputTokens": 8192,
        "thinkingConfig": {"thinkingBudget": 32_000, "includeThoughts": True},
    }
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Turn this place into a party!"}]}
    ]


def test_a_failed_call_answers_with_the_error_key_and_its_own_id() -> None:
    call = ToolCall("fc_7", "read", '{"path": "x"}')
    reply = AssistantMessage((call,), provider="test", model=FLASH.name, api="gemini")
    failed = ToolResultMessage("fc_7", "read", (TextPart("no such file"),), is_error=True)
    contents = gemini.request_body(Request(FLASH, "", (PARTY, reply, failed)))["contents"]
    assert contents[1]["parts"] == [
        {
            "functionCall": {"name": "read", "args": {"path": "x"}, "id": "fc_7"},
            "thoughtSignature": gemini._UNSIGNED,
        }
    ]
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "read", "response": {"error": "no such file"}, "id": "fc_7"}}
    ]


# --- multi-step tool loops through `auger -p --json`, on the built-in `google` provider -------

PARALLEL_LOOP: list[GeminiStep] = [
    (Step(tool="read", arguments='{"path": "notes.txt"}'), Step(tool="ls", arguments="{}")),
    Step(tool="read", arguments='{"path": "more.txt"}'),
    Step(text="The notes say hello."),
]


def _gemini_project(tmp_path: Path, server: GeminiServer) -> Project:
    project = Project.make(tmp_path)
    project.env |= {"GEMINI_BASE_URL": f"{server.url}/v1beta", "GEMINI_API_KEY": server.key}
    project.settings({"model": "google/gemini-3.8-flash", "retry": {"base_delay": 0.01}})
    (project.root / "notes.txt").write_text("hello from notes\n")
    (project.root / "more.txt").write_text("more notes\n")
    return project


def _run(project: Project, *args: str) -> list[dict[str, Any]]:
    result = project.run("-p", "--json", "--reasoning", "medium", *args)
    assert result.returncode == 0, result.stderr + result.stdout[-2000:]
    return json_lines(result.stdout)


@pytest.mark.slow
def test_parallel_calls_and_their_signatures_drive_a_tool_loop(tmp_path: Path) -> None:
    with GeminiServer(PARALLEL_LOOP) as server:
        project = _gemini_project(tmp_path, server)
        records = _run(project, "read notes.txt")
        assert server.violations == []
        assert len(server.requests) == 3
        assert server.returned == [0, 1, 2]  # every step's signature came back
        last = json.dumps(server.requests[-1].body)
    assert "hello from notes" in last and "more notes" in last  # both reads ran
    assert "more.txt" in last  # ls ran beside the first read
    assert records[-1]["stop_reason"] == "completed"
    usage = [r["usage"] for r in records if r["type"] == "token_usage_done"]
    assert usage[0] == {"input_tokens": 101, "output_tokens": 12, "cache_read_tokens": 64}


@pytest.mark.slow
def test_a_continued_session_sends_back_only_what_is_still_valid(tmp_path: Path) -> None:
    steps: list[GeminiStep] = [PARALLEL_LOOP[1], *(Step(text=t) for t in ("A.", "B.", "C.", "D."))]
    with GeminiServer(steps) as server:
        project = _gemini_project(tmp_path, server)
        _run(project, "read more.txt")
        _run(project, "-c", "once more")
        (project.root / "AGENTS.md").write_text("Answer in French.\n")
        _run(project, "-c", "and in French")  # a context message: the prefix still holds
        _run(project, "-c", "--model", "google/gemini-3.1-pro-preview", "switched")
        assert server.violations == []
        models = [PATH.match(r.path)["model"] for r in server.requests]  # type: ignore[index]
    # each answer's signature comes back while its prefix and model hold; none to another model
    assert server.returned == [0, 1, 2, 3, 0]
    assert models == ["gemini-3.8-flash"] * 4 + ["gemini-3.1-pro-preview"]
