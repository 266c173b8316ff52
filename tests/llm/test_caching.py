"""Prompt caching that pays: where auger's requests put their breakpoints, how cache writes are
priced by TTL, and what the providers' documented rules (tests/support/cache_sim.py) make of
the requests auger actually sends.

Anthropic: https://platform.claude.com/docs/en/build-with-claude/prompt-caching (four
breakpoints, a 20-block lookback, the minimum cacheable length, "5m" and "1h" TTLs written at
1.25x and 2x the input price, https://platform.claude.com/docs/en/about-claude/pricing).
OpenAI: https://platform.openai.com/docs/guides/prompt-caching (1,024 tokens, steps of 128,
`prompt_cache_retention`). OpenRouter: https://openrouter.ai/docs/features/prompt-caching and
https://openrouter.ai/docs/use-cases/usage-accounting (`usage.cost`).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from auger.llm.anthropic_body import request_body as anthropic_body
from auger.llm.catalog import lookup
from auger.llm.messages import (
    AssistantMessage,
    ProviderData,
    ReasoningPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.llm.openai_chat_body import request_body as chat_body
from auger.llm.openai_responses import request_body as responses_body
from auger.llm.provider import Model, Request, ToolSpec
from auger.llm.records import ProviderDataDone, ReasoningDelta, ReasoningDone, TokenUsageDone
from auger.llm.usage import Pricing, Usage
from auger.llm.wire import CacheSettings
from support.cache_sim import AnthropicCache, Block, OpenAICache, chat_blocks, messages_blocks
from support.cli import Project, json_lines
from support.server import FakeServer, Reply, sse
from support.strict import Step, StrictServer
from support.wire import stream

SONNET = lookup("anthropic", "claude-sonnet-5-5", "messages")  # $2 in, $2.50 / $4 writes
HAIKU = lookup("anthropic", "claude-haiku-4-5", "messages")  # budget thinking
TOOLS = (ToolSpec("read", "Read a file."),)


def _message(usage: dict[str, Any], *blocks: tuple[str, dict[str, Any]]) -> bytes:
    start = {"type": "message_start", "message": {"usage": usage}}
    delta = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}}
    return sse(
        ("message_start", start),
        *blocks,
        ("message_delta", delta),
        ("message_stop", {"type": "message_stop"}),
    )


# --- pricing and usage -------------------------------------------------------------------


async def test_cache_writes_are_priced_at_each_ttls_rate() -> None:
    usage = {
        "input_tokens": 100,
        "output_tokens": 0,
        "cache_read_input_tokens": 10_000,
        "cache_creation_input_tokens": 3_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 1_000, "ephemeral_1h_input_tokens": 2_000},
    }
    with FakeServer() as server:
        server.queue(Reply(body=_message(usage)))
        records = await stream(server, "messages", Request(SONNET, "", (UserMessage.of("hi"),)))
    done = next(r for r in records if isinstance(r, TokenUsageDone))
    assert done.usage.cache_write_1h_tokens == 2_000
    # 100 x $2 + 10,000 x $0.20 + 1,000 x $2.50 + 2,000 x $4, per million
    assert done.usage.cost == pytest.approx((200 + 2_000 + 2_500 + 8_000) / 1e6)


def test_a_1h_write_of_a_model_without_its_price_costs_input() -> None:
    model = Model("x", "m", "messages", pricing=Pricing(3.0, 15.0, 0.3, 3.75))
    usage = Usage(1_000, 0, None, 1_000, cache_write_1h_tokens=1_000)
    assert model.price(usage).cost == pytest.approx(1_000 * 3.0 / 1e6)


async def test_openrouters_reported_cost_is_the_requests_cost() -> None:
    usage = {"prompt_tokens": 194, "completion_tokens": 2, "cost": 0.95}
    usage |= {"prompt_tokens_details": {"cached_tokens": 90, "cache_write_tokens": 100}}
    body = sse(
        {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]},
        {"choices": [], "usage": usage},
        done=True,
    )
    claude = Model("openrouter", "anthropic/claude-sonnet-5-5", "chat-completions")
    with FakeServer() as server:
        server.queue(Reply(body=body))
        records = await stream(
            server, "chat-completions", Request(claude, "", (UserMessage.of("hi"),))
        )
    done = next(r for r in records if isinstance(r, TokenUsageDone))
    assert done.usage == Usage(194, 2, 90, 100, 0.95)


# --- what the requests carry -------------------------------------------------------------


def _loop(model: Model) -> Request:
    parts = (
        ReasoningPart("Read it."),
        ProviderData("thinking_signature", {"signature": "sig-1"}),
        ToolCall("toolu_1", "read", '{"path": "a"}'),
    )
    messages = (
        UserMessage.of("read a"),
        AssistantMessage(parts, provider=model.provider, model=model.name, api=model.api),
        ToolResultMessage("toolu_1", "read", UserMessage.of("contents").content),
    )
    return Request(model, "You are terse.", messages, TOOLS, reasoning="medium")


@pytest.mark.parametrize("ttl", ["5m", "1h"])
def test_openrouter_marks_claude_as_anthropic_would(ttl: str) -> None:
    claude = Model("openrouter", "anthropic/claude-sonnet-5-5", "chat-completions")
    body = chat_body(_loop(claude), cache=CacheSettings(ttl=ttl))  # type: ignore[arg-type]
    mark = {"type": "ephemeral"} | ({"ttl": "1h"} if ttl == "1h" else {})
    system, user, _, result = body["messages"]
    assert system["content"] == [{"type": "text", "text": "You are terse.", "cache_control": mark}]
    assert user["content"][-1]["cache_control"] == mark  # where the previous request ended
    assert result["content"][-1]["cache_control"] == mark
    gemini = Model("openrouter", "google/gemini-3.8-flash", "chat-completions")
    assert '"cache_control"' in json.dumps(chat_body(_loop(gemini)))
    for other in ("openai/gpt-6-sol", "deepseek/deepseek-v4-pro", "gemini-3.8-flash"):
        plain = chat_body(_loop(Model("p", other, "chat-completions")))
        assert '"cache_control"' not in json.dumps(plain)


def test_a_lone_message_without_tools_is_not_written_to_the_cache() -> None:
    # a one-off request: nothing later extends it, and a write costs more than input
    body = anthropic_body(Request(SONNET, "Summarize.", (UserMessage.of("a long transcript"),)))
    assert [b.ttl for b in messages_blocks(body)] == ["5m", None]


def test_responses_asks_for_the_configured_retention() -> None:
    gpt = lookup("openai", "gpt-5.1", "responses")
    request = Request(gpt, "", (UserMessage.of("hi"),))
    assert "prompt_cache_retention" not in responses_body(request)
    day = responses_body(request, cache=CacheSettings(retention="24h"))
    assert day["prompt_cache_retention"] == "24h"


async def test_budget_thinking_with_tools_asks_for_interleaved_thinking() -> None:
    reply = _message({"input_tokens": 1, "output_tokens": 1})
    with FakeServer() as server:
        server.queue(Reply(body=reply), Reply(body=reply))
        await stream(server, "messages", _loop(HAIKU))
        await stream(server, "messages", _loop(SONNET))
        budget, adaptive = server.requests
    assert budget.body["thinking"]["type"] == "enabled"
    assert budget.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert "anthropic-beta" not in adaptive.headers  # adaptive thinking interleaves by itself


async def test_thinking_text_sent_whole_in_the_block_start_is_kept() -> None:
    start = {"type": "thinking", "thinking": "All at once.", "signature": "sig-1"}
    reply = _message(
        {"input_tokens": 1, "output_tokens": 1},
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": start},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    )
    with FakeServer() as server:
        server.queue(Reply(body=reply))
        records = await stream(server, "messages", Request(SONNET, "", (UserMessage.of("hi"),)))
    assert ReasoningDelta("All at once.") in records
    at = next(i for i, r in enumerate(records) if isinstance(r, ReasoningDone))
    done, kept = records[at : at + 2]
    assert done == ReasoningDone("All at once.")
    assert isinstance(kept, ProviderDataDone) and kept.part.data == {"signature": "sig-1"}


# --- the documented rules, simulated -----------------------------------------------------


def _blocks(count: int, marks: dict[int, str], size: int = 100) -> list[Block]:
    # a JSON string of `size` x 4 characters, quotes included: `size` tokens
    return [Block(f"{i:04d}" + "x" * (size * 4 - 6), marks.get(i)) for i in range(count)]


def test_the_simulator_reads_back_at_most_20_blocks_before_a_breakpoint() -> None:
    cache = AnthropicCache(minimum=1024)
    first = cache.send(_blocks(30, {29: "5m"}), 0)
    assert (first.read, first.write) == (0, 3000)
    near = cache.send(_blocks(50, {49: "5m"}), 10)
    assert near.read == 3000  # 20 blocks back from block 49 is block 29
    far = AnthropicCache(minimum=1024)
    far.send(_blocks(30, {29: "5m"}), 0)
    assert far.send(_blocks(51, {50: "5m"}), 10).read == 0


def test_the_simulator_honours_ttl_minimum_and_four_breakpoints() -> None:
    cache = AnthropicCache(minimum=1024)
    assert cache.send(_blocks(5, {4: "5m"}), 0).write == 0  # 500 tokens: below the minimum
    cache.send(_blocks(20, {19: "5m"}), 0)
    assert cache.send(_blocks(20, {19: "5m"}), 301).read == 0  # expired after five minutes
    hour = AnthropicCache(minimum=1024)
    assert hour.send(_blocks(20, {19: "1h"}), 0).write_1h == 2000
    assert hour.send(_blocks(20, {19: "1h"}), 3000).read == 2000
    with pytest.raises(ValueError):
        hour.send(_blocks(20, dict.fromkeys(range(5), "5m")), 0)


def test_the_openai_simulator_counts_from_1024_in_steps_of_128() -> None:
    cache = OpenAICache()
    cache.send(_blocks(12, {}), 0)
    assert cache.send(_blocks(13, {}), 10).read == 1024 + 128  # 1,200 shared
    assert cache.send(_blocks(13, {}), 400).read == 0  # in memory: gone after the pause
    day = OpenAICache("24h")
    day.send(_blocks(12, {}), 0)
    assert day.send(_blocks(12, {}), 4000).read == 1152


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project.make(tmp_path)
    (project.root / "notes.txt").write_text("hello from notes\n" * 200)
    return project


PARALLEL = [
    Step(tool="read", arguments='{"path": "notes.txt"}'),
    Step(tool="read", arguments='{"path": "notes.txt"}', calls=12),
    Step(tool="read", arguments='{"path": "notes.txt"}'),
    Step("Done."),
]


def _reads(requests: list[Any], blocks: Any) -> list[tuple[int, int]]:
    """(tokens read, tokens of the previous request) of each request after the first."""
    cache = AnthropicCache(minimum=1024)
    billed = [cache.send(blocks(r.body), i * 5.0) for i, r in enumerate(requests)]
    return [(b.read, a.total) for a, b in itertools.pairwise(billed)]


@pytest.mark.slow
def test_auger_requests_keep_hitting_after_a_12_way_step(project: Project) -> None:
    with StrictServer("messages", PARALLEL) as server:
        project.env |= {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        project.settings({"model": "anthropic/claude-sonnet-5-5", "permissions": {"mode": "auto"}})
        result = project.run("-p", "--json", "--reasoning", "medium", "read notes.txt")
        assert result.returncode == 0, result.stderr
        assert server.violations == []
        reads = _reads(server.requests, messages_blocks)
    # each request reads everything the one before it sent, the 25 blocks of the step too
    assert all(read == before for read, before in reads), reads


@pytest.mark.slow
def test_claude_through_openrouter_keeps_hitting(project: Project) -> None:
    with StrictServer("chat-completions", PARALLEL) as server:
        project.env |= {"OPENROUTER_BASE_URL": f"{server.url}/v1", "OPENROUTER_API_KEY": "k"}
        settings = {"model": "openrouter/anthropic/claude-sonnet-5-5", "cache": {"ttl": "1h"}}
        project.settings(settings | {"permissions": {"mode": "auto"}})
        result = project.run("-p", "--json", "read notes.txt")
        assert result.returncode == 0, result.stderr
        reads = _reads(server.requests, chat_blocks)
        sent = json.dumps(server.requests[-1].body)
    assert all(read == before for read, before in reads), reads
    assert '"ttl": "1h"' in sent


@pytest.mark.slow
def test_the_cache_ttl_flag_and_setting_reach_the_request(project: Project) -> None:
    with StrictServer("messages", [Step("Hi."), Step("Hi again.")]) as server:
        project.env |= {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        project.settings({"model": "anthropic/claude-sonnet-5-5"})
        assert project.run("-p", "--cache-ttl", "1h", "hi").returncode == 0
        project.settings({"model": "anthropic/claude-sonnet-5-5", "cache": {"ttl": "5m"}})
        assert project.run("-p", "hi").returncode == 0
        hour, default = (r.body for r in server.requests)
    assert hour["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert default["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_a_wrong_cache_ttl_is_a_settings_error(project: Project) -> None:
    project.settings({"model": "anthropic/claude-sonnet-5-5", "cache": {"ttl": "2h"}})
    result = project.run("-p", "--json", "hi")
    out = result.stdout + result.stderr
    assert "cache.ttl" in out and "Traceback" not in out, out
    assert json_lines(result.stdout) or result.returncode != 0


@pytest.mark.slow
def test_a_summary_request_reads_the_cached_conversation(project: Project) -> None:
    # compaction's summary request continues the conversation (same system prompt and tools,
    # the history as sent), so everything the previous request sent is read, not billed again
    steps = [Step(tool="read", arguments='{"path": "notes.txt"}'), Step("Done.")]
    with StrictServer("messages", [*steps, Step("Summary."), Step("Compacted.")]) as server:
        project.env |= {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        settings: dict[str, Any] = {"model": "anthropic/claude-sonnet-5-5"}
        project.settings(settings | {"permissions": {"mode": "auto"}})
        assert project.run("-p", "--reasoning", "medium", "read notes.txt").returncode == 0
        compaction = {"reserve_tokens": SONNET.context_window - 5, "keep_recent_tokens": 1}
        project.settings(settings | {"permissions": {"mode": "auto"}, "compaction": compaction})
        result = project.run("-p", "--json", "--reasoning", "medium", "-c", "and now compact")
        assert result.returncode == 0, result.stderr
        assert any(r["type"] == "compact" for r in json_lines(result.stdout))
        assert server.violations == []
        previous, summary = (r.body for r in server.requests[1:3])
        reads = _reads(server.requests[:3], messages_blocks)
    assert reads[1][0] == reads[1][1] > 1024, reads
    assert (summary["system"], summary["tools"]) == (previous["system"], previous["tools"])
    assert "Stop here" in summary["messages"][-1]["content"][-1]["text"]
