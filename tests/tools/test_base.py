"""Tool arguments checked against the tool's own types, before `before_tool_call`: the schema
the model sees and the check come from the one signature."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import AfterToolCall
from auger.tools.base import ToolContext, tool
from support.runtime import collect, make_runtime, types

RAN: list[dict[str, object]] = []


@tool
def sweep(mode: Literal["fast", "slow"], ids: list[int], limits: dict[str, float] | None = None,
          depth: int = 2) -> str:  # fmt: skip
    """Sweep some ids."""
    RAN.append({"mode": mode, "ids": ids, "limits": limits, "depth": depth})
    return "swept"


async def _after(tmp_path: Path, args: dict[str, object]) -> tuple[AfterToolCall, list[str]]:
    RAN.clear()
    provider = ScriptedProvider([Reply.of(Call("sweep", args, "c1")), Reply.of("ok")])
    rt = make_runtime(tmp_path, provider, extensions=[lambda g: g.tool(sweep)])
    records = await collect(rt, "go")
    return next(r for r in records if isinstance(r, AfterToolCall)), types(records)


async def test_wrong_types_are_refused_naming_each_field_before_before_tool_call(tmp_path):
    after, seen = await _after(tmp_path, {"mode": "rm -rf", "ids": ["x", None]})
    assert after.result.error_type == "validation_error"
    message = after.result.content
    assert '\'mode\' must be one of "fast", "slow"' in message
    assert "'ids' must be array" in message and "`ids[0]`" in message
    assert "before_tool_call" not in seen and RAN == []


async def test_an_unknown_argument_is_refused_by_name(tmp_path):
    after, _ = await _after(tmp_path, {"mode": "fast", "ids": [1], "<the code>": ""})
    assert after.result.error_type == "validation_error"
    assert "unknown argument '<the code>'" in after.result.content
    assert "it takes mode, ids, limits, depth" in after.result.content and RAN == []


async def test_a_float_is_no_int_and_nested_values_are_checked(tmp_path):
    after, _ = await _after(tmp_path, {"mode": "fast", "ids": [1], "depth": 2.5})
    assert "'depth' must be integer" in after.result.content
    after, _ = await _after(tmp_path, {"mode": "fast", "ids": [1], "limits": {"a": "high"}})
    assert "'limits' must be object (Expected `float`, got `str`" in after.result.content
    assert RAN == []


async def test_good_arguments_run_with_defaults_and_an_int_for_a_float(tmp_path):
    after, seen = await _after(tmp_path, {"mode": "slow", "ids": [3], "limits": {"a": 2},
                                          "depth": None})  # fmt: skip
    assert after.result.content == "swept" and "before_tool_call" in seen
    assert RAN == [{"mode": "slow", "ids": [3], "limits": {"a": 2.0}, "depth": 2}]


async def test_a_missing_argument_is_named(tmp_path):
    after, _ = await _after(tmp_path, {"ids": [1]})
    assert after.result.content == "sweep: missing required argument mode"


async def test_a_tool_with_its_own_schema_gets_every_key(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}

    @tool(parameters=schema)
    def raw(ctx: ToolContext, **kwargs: object) -> str:
        """Takes anything."""
        return ",".join(sorted(kwargs))

    assert await raw.run({"a": "x", "b": 1}, ToolContext(tmp_path, {})) == "a,b"
    refused = await raw.run({"a": 1}, ToolContext(tmp_path, {}))
    assert refused.error_type == "validation_error"
