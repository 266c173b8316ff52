"""auger: a coding agent you own. The public API, imported lazily so start-up stays instant.

from auger import Runtime
async for record in Runtime("anthropic/claude-sonnet-5-5").prompt("hi"):
    print(record.to_dict())
"""

from __future__ import annotations

from auger._lazy import exports
from auger._version import __version__

_TABLE = {
    "runtime": ("Runtime",),
    "engine.turn": ("Answer",),
    "llm.scripted": ("Call", "Delay", "Fail", "Reasoning", "Reply", "ScriptedProvider", "Text"),
    "tools.base": ("Tool", "ToolContext", "ToolError", "ToolResponse", "tool"),
    "llm.usage": ("Usage",),
    "llm.provider": ("Model",),
    "llm.errors": ("ProviderError", "RetryPolicy"),
    "config.errors": ("ConfigError",),
    "extensions.source": ("ExtensionError",),
    "host": ("Host", "NullHost"),
    "extensions.registrar": ("Registrar",),
    "engine.context": ("Context",),
    "": ("events", "records", "sessions"),  # modules
}
__getattr__ = exports(__name__, _TABLE)

__all__ = [
    "Answer",
    "Call",
    "ConfigError",
    "Context",
    "Delay",
    "ExtensionError",
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
    "sessions",
    "tool",
]

TYPE_CHECKING = False  # typing itself costs milliseconds that `--version` cannot spare
if TYPE_CHECKING:
    from auger import events, records, sessions
    from auger.config.errors import ConfigError
    from auger.engine.context import Context
    from auger.engine.turn import Answer
    from auger.extensions.registrar import Registrar
    from auger.extensions.source import ExtensionError
    from auger.host import Host, NullHost
    from auger.llm.errors import ProviderError, RetryPolicy
    from auger.llm.provider import Model
    from auger.llm.scripted import Call, Delay, Fail, Reasoning, Reply, ScriptedProvider, Text
    from auger.llm.usage import Usage
    from auger.runtime import Runtime
    from auger.tools.base import Tool, ToolContext, ToolError, ToolResponse, tool
