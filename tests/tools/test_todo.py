"""The `todo` tool: the whole list each call, streamed as a `todo` record, saved in the
session, shown by `/export`; a malformed list is a validation error the model sees."""

from __future__ import annotations

from pathlib import Path

from auger.llm.scripted import Call, Reply, ScriptedProvider
from auger.records import AfterToolCall, TodoList
from auger.session.entries import CustomEntry
from support.runtime import collect, make_runtime

ITEMS = [
    {"content": "read the  notes", "status": "completed"},
    {"content": "write it", "status": "in_progress"},
    {"content": "check it", "status": "pending"},
]


async def test_the_list_streams_as_a_record_and_is_saved_and_exported(tmp_path: Path) -> None:
    provider = ScriptedProvider([Reply.of(Call("todo", {"items": ITEMS})), "planned"])
    runtime = make_runtime(tmp_path, provider, bundled=True)
    records = await collect(runtime, "plan")
    [listed] = [r for r in records if isinstance(r, TodoList)]
    assert [i["content"] for i in listed.items] == ["read the notes", "write it", "check it"]
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert after.result.content == "Todo list saved: 1 pending, 1 in progress, 1 completed"
    [saved] = [
        e for e in runtime.session.branch() if isinstance(e, CustomEntry) and e.kind == "todo"
    ]
    assert saved.kind == "todo" and saved.data == list(listed.items)
    [_ async for _ in runtime.run_command("export", "out.md")]
    exported = (runtime.cwd / "out.md").read_text()
    assert "- [x] read the notes\n- [~] write it\n- [ ] check it" in exported
    await runtime.close()


async def test_an_item_without_a_known_status_is_refused(tmp_path: Path) -> None:
    bad = [{"content": "x", "status": "done"}]
    provider = ScriptedProvider([Reply.of(Call("todo", {"items": bad})), "ok"])
    runtime = make_runtime(tmp_path, provider, bundled=True)
    records = await collect(runtime, "plan")
    [after] = [r for r in records if isinstance(r, AfterToolCall)]
    assert after.result.error_type == "validation_error"
    assert "status must be pending, in_progress, completed" in after.result.content
    assert not [r for r in records if isinstance(r, TodoList)]
    await runtime.close()
