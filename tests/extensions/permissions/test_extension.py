"""The bundled `permissions` extension in a Runtime: `/permissions MODE`, unknown tools, and a
host that answers."""

from __future__ import annotations

from pathlib import Path

from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import AfterToolCall, CommandOutput, PermissionDecision
from support.runtime import collect, make_runtime


def results(records: list) -> list[str]:
    return [r.result.content for r in records if isinstance(r, AfterToolCall)]


async def test_slash_permissions_sets_the_mode_for_the_session(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [Reply.of(Call("bash", {"command": "touch hi"}, "c1")), Reply.of("done")]
    )
    rt = make_runtime(tmp_path, provider, bundled=True, settings={"permissions": {"mode": "auto"}})
    said = [r async for r in rt.run_command("permissions", "read-only")]
    assert [r.text for r in said if isinstance(r, CommandOutput)] == ["Permission mode: read-only"]
    records = await collect(rt, "go")
    assert results(records) == [
        "ERROR: bash needs permission — allow it with --allow 'bash(touch hi)' or "
        "--permission-mode auto"
    ]
    assert [(r.decision, r.by) for r in records if isinstance(r, PermissionDecision)] == [
        ("deny", "mode")
    ]
    shown = [
        r for r in [x async for x in rt.run_command("permissions")] if isinstance(r, CommandOutput)
    ]
    assert shown[0].text.startswith("Permission mode: read-only")
    await rt.close()


async def test_an_unknown_tool_is_left_to_the_dispatch(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("teleport", {}, "c1")), Reply.of("done")])
    rt = make_runtime(tmp_path, provider, bundled=True, settings={"permissions": {"mode": "ask"}})
    records = await collect(rt, "go")
    assert results(records)[0].startswith("ERROR: unknown tool 'teleport'")
    assert not any(isinstance(r, PermissionDecision) for r in records)
    await rt.close()
