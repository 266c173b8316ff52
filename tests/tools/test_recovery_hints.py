"""Error messages that help a small model recover: what to read, which paths exist."""

from __future__ import annotations

from pathlib import Path

import msgspec

from auger.tools.base import ToolContext
from auger.tools.edit import TOOL as EDIT
from auger.tools.files import FileReads
from auger.tools.find import TOOL as FIND
from auger.tools.grep import TOOL as GREP
from auger.tools.ls import TOOL as LS
from auger.tools.read import TOOL as READ

from .conftest import Call, make_tree


def tracking(ctx: ToolContext) -> ToolContext:
    return msgspec.structs.replace(ctx, files=FileReads())


async def test_edit_not_found_says_to_read_an_unread_file(call: Call, ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("alpha\n")
    context = tracking(ctx)
    failed = await call(EDIT, context, path="f.txt", old_string="beta", new_string="b")
    assert failed.error_type == "not_found"
    assert "You have not read f.txt yet: read it first." in failed.content
    await call(READ, context, path="f.txt")
    again = await call(EDIT, context, path="f.txt", old_string="beta", new_string="b")
    assert again.error_type == "not_found" and "have not read" not in again.content


async def test_edit_without_tracking_says_nothing_about_reading(
    call: Call, ctx: ToolContext
) -> None:
    (ctx.cwd / "f.txt").write_text("alpha\n")
    failed = await call(EDIT, path="f.txt", old_string="beta", new_string="b")
    assert "have not read" not in failed.content


async def test_an_unknown_path_lists_the_nearest_existing_ones(call: Call, tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/auger/cli.py": "x\n", "src/auger/loop.py": "y\n", "README.md": ""})
    for tool, args in (
        (LS, {"path": "src/augr"}),
        (GREP, {"pattern": "x", "path": "src/augr/cli.py"}),
        (FIND, {"pattern": "*.py", "path": "src/augr"}),
    ):
        failed = await call(tool, **args)
        assert failed.error_type == "not_found"
        assert failed.content.endswith("Nearest existing paths: src/auger/"), failed.content
    failed = await call(LS, path="src/auger/nothing/deeper")
    assert failed.content.endswith("Nearest existing paths: src/auger/cli.py, src/auger/loop.py")


async def test_the_engine_tracks_reads_for_edit(tmp_path: Path) -> None:
    from auger.llm.scripted import Call as ScriptedCall
    from auger.llm.scripted import Reply, ScriptedProvider
    from auger.records import AfterToolCall
    from support.runtime import collect, make_runtime

    edit = {"path": "f.txt", "old_string": "beta", "new_string": "b"}
    provider = ScriptedProvider(
        [
            Reply.of(ScriptedCall("edit", edit, "c1")),
            Reply.of(ScriptedCall("read", {"path": "f.txt"}, "c2")),
            Reply.of(ScriptedCall("edit", edit, "c3")),
            Reply.of("ok"),
        ]
    )
    rt = make_runtime(tmp_path, provider, bundled=True)
    (tmp_path / "project" / "f.txt").write_text("alpha\n")
    records = await collect(rt, "edit it")
    after = {r.call_id: r.result for r in records if isinstance(r, AfterToolCall)}
    assert "You have not read f.txt yet" in after["c1"].content
    assert after["c3"].error_type == "not_found" and "have not read" not in after["c3"].content
