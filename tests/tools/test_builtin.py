"""The bundled tools, registered the way any extension registers tools."""

from __future__ import annotations

import json
import subprocess
import sys

from auger.tools.base import Tool
from auger.tools.builtin import DEFAULT_TOOLS, extensions


class Registrar:
    """The one method a tool extension may use."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def tool(self, tool: Tool) -> None:
        self.tools.append(tool)


def test_each_module_registers_its_tool() -> None:
    g = Registrar()
    pairs = extensions()
    for _, extension in pairs:
        extension(g)
    assert [name for name, _ in pairs] == list(DEFAULT_TOOLS)
    assert [tool.name for tool in g.tools] == list(DEFAULT_TOOLS)
    for tool in g.tools:
        assert tool.description.endswith("."), tool.name
        assert "\n" not in tool.description, tool.name
        assert tool.parameters["type"] == "object"


def test_the_default_schemas_fit_the_prompt_budget() -> None:
    from auger.extensions.subagents import description, parameters
    from auger.extensions.subagents.definitions import BUILTIN

    g = Registrar()
    for _, extension in extensions():
        extension(g)
    g.tool(Tool("task", description({d.name: d for d in BUILTIN}), parameters(), g.tools[0].run))
    specs = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in g.tools
    ]
    # what a Chat Completions request spends on them (`task` included): the rest of a first
    # request is ~640 characters, and the whole should stay within 5,500 (bench/bench_prompt.py)
    assert len(json.dumps(specs)) <= 4860


def test_importing_the_tools_stays_light() -> None:
    code = (
        "import sys, auger.tools.builtin as b; b.extensions(); "
        "print(sorted({'difflib', 'tempfile'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
