"""A `bash` command longer than one argument may be (Linux: 128 KiB) runs, as a script file in
the session's temp, in the sandbox and out of it, foreground and background (issue 27)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from auger.tools.sandbox import find_bwrap, probe
from support.cli import Project, json_lines

pytestmark = pytest.mark.slow
SANDBOX = probe(find_bwrap(os.environ)) is None or bool(os.environ.get("CI"))


@pytest.mark.parametrize(
    "sandbox",
    [
        "off",
        pytest.param("workspace-write", marks=pytest.mark.skipif(not SANDBOX, reason="no bwrap")),
    ],
)
def test_a_command_over_128_kib_runs(tmp_path: Path, sandbox: str) -> None:
    project = Project.make(tmp_path)
    command = f": '{'x' * 200_000}'\necho long-command-ran in $PWD"
    background = {"command": command + " > bg.txt", "run_in_background": True}
    project.script(
        [
            {"parts": [{"tool": "bash", "args": {"command": command}, "id": "c0"}]},
            {"parts": [{"tool": "bash", "args": background, "id": "c1"}]},
            {"parts": [{"tool": "bash", "args": {"command": "sleep 1; cat bg.txt"}, "id": "c2"}]},
            {"text": "done"},
        ]
    )
    done = project.run("-p", "--json", "--sandbox", sandbox, "go", timeout=60)
    got = {
        r["call_id"]: r["result"]["content"]
        for r in json_lines(done.stdout)
        if r["type"] == "after_tool_call"
    }
    assert got["c0"] == f"long-command-ran in {project.root}", got["c0"][:300]
    assert got["c2"] == f"long-command-ran in {project.root}", got["c2"][:300]
