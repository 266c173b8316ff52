"""Opaque provider data as its own message part: every format keeps what its provider needs
back as `ProviderData` parts, and a session written before those parts existed (its data in
prefixed `ReasoningPart.signature` strings) loads and replays byte for byte as the same
conversation streamed today does — the bodies of `tests/fixtures/provider_data/` were sent by
the code that wrote those sessions (see its README)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auger.llm import anthropic, openai_responses
from auger.llm.messages import (
    AssistantMessage,
    Message,
    ProviderData,
    ReasoningPart,
    message_from_dict,
)
from auger.llm.stored import legacy_form, upgrade
from auger.session.context import build_context
from auger.session.store import SessionFile
from support.opaque import AGAIN, CLAUDE, SYSTEM, TALKS, Talk, bodies, play, request

FIXTURES = Path(__file__).parent.parent / "fixtures" / "provider_data"
SENT = json.loads((FIXTURES / "bodies.json").read_text())["bodies"]
IDS = [t.name for t in TALKS]
KINDS = {
    "messages": {"thinking_signature", "redacted_thinking", "server_block"},
    "responses": {"encrypted_reasoning", "web_search_call", "phase"},
    "openrouter": {"reasoning_details", "call_signatures"},
    "deepseek": set(),
    "gemini": {"thought_signature", "part_signature"},
}
KINDS |= {"bedrock": KINDS["messages"], "vertex-claude": KINDS["messages"]}
KINDS |= {"vertex-gemini": KINDS["gemini"]}


def _loaded(path: Path) -> list[Message]:
    with SessionFile.open(path) as session:
        assert session.warnings == []
        return build_context(session.branch())


def _kinds(messages: list[Message]) -> set[str]:
    return {
        p.kind
        for m in messages
        if isinstance(m, AssistantMessage)
        for p in m.content
        if isinstance(p, ProviderData)
    }


@pytest.mark.parametrize("talk", TALKS, ids=IDS)
def test_an_old_session_replays_byte_for_byte(talk: Talk) -> None:
    messages = _loaded(FIXTURES / f"{talk.name}.jsonl")
    assert _kinds(messages) == KINDS[talk.name]  # upgraded on load
    assert bodies(talk, messages) == SENT[talk.name]


@pytest.mark.parametrize("talk", TALKS, ids=IDS)
async def test_a_new_session_replays_as_the_old_one(talk: Talk) -> None:
    messages = await play(talk)
    assert _kinds(messages) == KINDS[talk.name]
    assert bodies(talk, messages) == SENT[talk.name]


@pytest.mark.parametrize("talk", TALKS, ids=IDS)
async def test_a_new_session_keeps_no_data_in_reasoning(talk: Talk) -> None:
    parts = [
        p.to_dict() for m in await play(talk) if isinstance(m, AssistantMessage) for p in m.content
    ]
    reasoning = [p for p in parts if p["type"] == "reasoning"]
    assert all(set(p) == {"type", "text"} for p in reasoning)


@pytest.mark.parametrize("talk", TALKS, ids=IDS)
def test_the_stored_form_is_rebuilt_exactly(talk: Talk) -> None:
    # what the old fingerprints were taken over: the line's message without its usage
    lines = (FIXTURES / f"{talk.name}.jsonl").read_text().splitlines()[1:]
    for line in lines:
        stored = json.loads(line)["message"]
        upgraded = message_from_dict(upgrade(stored)).to_dict()
        assert legacy_form(upgraded) == stored


@pytest.mark.parametrize("talk", TALKS, ids=IDS)
def test_a_fork_of_an_old_session_still_replays_byte_for_byte(talk: Talk, tmp_path: Path) -> None:
    # the fork writes today's form: the parts keep saying their prefix is the old form's
    shutil.copy(FIXTURES / f"{talk.name}.jsonl", tmp_path / "old.jsonl")
    with SessionFile.open(tmp_path / "old.jsonl") as session:
        session.fork(session.leaf_id, tmp_path / "fork.jsonl").close()
    lines = (tmp_path / "fork.jsonl").read_text().splitlines()[1:]
    stored = [p for line in lines for p in json.loads(line)["message"]["content"]]
    assert not [p for p in stored if p["type"] == "reasoning" and "signature" in p]
    assert bodies(talk, _loaded(tmp_path / "fork.jsonl")) == SENT[talk.name]


def _old(content: list[dict[str, Any]], api: str) -> Message:
    stored = {"role": "assistant", "content": content, "provider": "anthropic", "api": api}
    return message_from_dict(upgrade(stored | {"model": CLAUDE.name}))


def test_an_unbound_signature_of_an_older_session_goes_back_whatever_the_prefix() -> None:
    # sessions older than sealing stored the bare signature: trusted as they were then
    old = _old([{"type": "reasoning", "text": "hmm", "signature": "EqQBCgIY"}], "messages")
    body = anthropic.request_body(request(CLAUDE, (AGAIN, old, AGAIN), SYSTEM + " Edited."))
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "EqQBCgIY"}
    assert body["messages"][1]["content"] == [thinking]


def test_a_signature_no_format_can_read_is_dropped_and_its_reasoning_kept() -> None:
    # the old builder raised on it (it is no JSON object) every time the history was sent
    garbage = [{"type": "reasoning", "text": "Plan.", "signature": "not json"}]
    old = _old(garbage, "responses")
    assert old.content == (ReasoningPart("Plan."),)
    model = msgspec.structs.replace(CLAUDE, api="responses")
    body = openai_responses.request_body(request(model, (AGAIN, old, AGAIN)))
    assert [i.get("type") for i in body["input"]] == [None, None]


def test_upgrade_leaves_todays_form_alone() -> None:
    today = {"role": "assistant", "content": [{"type": "reasoning", "text": "a"}], "api": "x"}
    assert upgrade(today) is today


def test_a_stored_part_missing_its_data_is_a_skipped_line_not_a_failing_request(
    tmp_path: Path,
) -> None:
    lines = (FIXTURES / "messages.jsonl").read_text().splitlines()
    broken = {"type": "provider_data", "kind": "thinking_signature", "data": {}}
    entry = json.loads(lines[-1])
    entry["message"]["content"].append(broken)
    (tmp_path / "s.jsonl").write_text("\n".join([*lines[:-1], json.dumps(entry)]) + "\n")
    with SessionFile.open(tmp_path / "s.jsonl") as session:
        assert len(session.warnings) == 1
        assert "thinking_signature provider data without signature" in session.warnings[0]
