"""auger: a coding agent you own. The public API, imported lazily so start-up stays instant.

from auger import Runtime
async for record in Runtime("anthropic/claude-sonnet-5-5").prompt("hi"):
    print(record.to_dict())
"""

from __future__ import annotations

import importlib

from auger._version import __version__

_EXPORTS = {
    "Runtime": "auger.runtime",
    "Answer": "auger.engine.turn",
    "ScriptedProvider": "auger.llm.scripted",
    "Reply": "auger.llm.scripted",
    "Text": "auger.llm.scripted",
    "Reasoning": "auger.llm.scripted",
    "Call": "auger.llm.scripted",
    "Fail": "auger.llm.scripted",
    "Delay": "auger.llm.scripted",
    "tool": "auger.tools.base",
    "Tool": "auger.tools.base",
    "ToolContext": "auger.tools.base",
    "ToolError": "auger.tools.base",
    "ToolResponse": "auger.tools.base",
    "Usage": "auger.llm.usage",
    "Model": "auger.llm.provider",
    "RetryPolicy": "auger.llm.errors",
    "ProviderError": "auger.llm.errors",
    "ConfigError": "auger.config.errors",
    "Host": "auger.host",
    "NullHost": "auger.host",
    "Registrar": "auger.extensions.registrar",
    "Context": "auger.engine.context",
}
_MODULES = {"records", "events"}

__all__ = [
    "Answer",
    "Call",
    "ConfigError",
    "Context",
    "Delay",
    "Fail",
    "Host",
    "Model",
    "NullHost",
    "ProviderError",
    "Reasoning",
    "Registrar",
    "Reply",
    "RetryPolicy",
    "Runtime",
    "ScriptedProvider",
    "Text",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolResponse",
    "Usage",
    "__version__",
    "events",
    "records",
    "tool",
]

TYPE_CHECKING = False  # typing itself costs milliseconds that `--version` cannot spare
if TYPE_CHECKING:
    from auger import events, records
    from auger.config.errors import ConfigError
    from auger.engine.context import Context
    from auger.engine.turn import Answer
    from auger.extensions.registrar import Registrar
    from auger.host import Host, NullHost
    from auger.llm.errors import ProviderError, RetryPolicy
    from auger.llm.provider import Model
    from auger.llm.scripted import Call, Delay, Fail, Reasoning, Reply, ScriptedProvider, Text
    from auger.llm.usage import Usage
    from auger.runtime import Runtime
    from auger.tools.base import Tool, ToolContext, ToolError, ToolResponse, tool


def __getattr__(name: str) -> object:
    if name in _MODULES:
        return importlib.import_module(f"auger.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'auger' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
