"""Every record prints as a JSON object as-is (SPEC §1)."""

from __future__ import annotations

import json

from auger.llm.usage import Usage
from auger.records import (
    AfterToolCall,
    JobExit,
    Notify,
    ReasoningDone,
    SessionStart,
    ToolCallDelta,
    TurnEnd,
)
from auger.tools.base import ToolResponse


def test_to_dict_includes_the_type_and_the_fields() -> None:
    assert SessionStart("abc", "new", "/p").to_dict() == {
        "type": "session_start",
        "id": "abc",
        "reason": "new",
        "root": "/p",
    }
    assert Notify("hi").to_dict() == {"type": "notify", "message": "hi", "level": "info"}


def test_turn_end_puts_the_cost_in_usage_and_leaves_it_out_when_unknown() -> None:
    priced = TurnEnd("completed", Usage(1, 2, cost=0.5), "t").to_dict()
    assert priced["usage"]["cost"] == 0.5 and "cost" not in priced
    assert "cost" not in TurnEnd("completed", Usage(1, 2), "t").to_dict()["usage"]
    assert TurnEnd("completed", Usage(1, 2, cost=0.5)).cost == 0.5


def test_after_tool_call_carries_the_tool_response() -> None:
    record = AfterToolCall("c1", "bash", {"command": "ls"}, ToolResponse.error("x", "no"), 1.0, 0.5)
    assert record.to_dict()["result"] == {"content": "no", "error_type": "x", "is_error": True}


def test_every_record_is_json_serializable() -> None:
    records = [
        ToolCallDelta("c", None, "{"),
        ReasoningDone("r"),
        JobExit("j1", "sleep 1", 0, None, 1.0, "/tmp/out"),
        TurnEnd("error", Usage(), "", {"kind": "auth", "message": "m"}),
    ]
    for record in records:
        assert json.loads(json.dumps(record.to_dict()))["type"] == record.type
    assert "signature" not in ReasoningDone("r").to_dict()
    assert ToolCallDelta("c", None, "{").to_dict()["name"] is None
