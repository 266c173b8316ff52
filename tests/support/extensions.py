"""Helpers for tests that load real extension files: write one, run it, read what it saw.

Every file written here starts with a `record(event, **extra)` function that appends
`event.to_dict() | extra` as one JSON line to a log; it returns `None`, so a handler can
record and then return its effect: `lambda e: record(e) or "replacement"`. It also defines
an `echo(text)` function, for `g.tool(echo)`.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auger.extensions.source import from_file
from auger.llm.scripted import ScriptedProvider
from auger.runtime import Runtime

# SPEC §2's table, and the record types of SPEC §1 (each also an observe-only event).
SPEC_EVENTS = (
    "session_start",
    "session_end",
    "input",
    "user_bash",
    "turn_start",
    "turn_end",
    "idle",
    "message",
    "before_request",
    "tool_call",
    "tool_start",
    "tool_end",
    "model_select",
    "usage",
    "reasoning",
    "error",
    "compact",
    "context",
    "before_provider_request",
    "after_provider_response",
    "agent_start",
    "agent_end",
    "before_agent_start",
    "session_before_compact",
    "session_before_fork",
    "session_before_switch",
    "session_shutdown",
)
STREAM_RECORDS = (
    "text_delta",
    "text_done",
    "reasoning_delta",
    "reasoning_done",
    "tool_call_delta",
    "tool_call_done",
    "token_usage_done",
    "finish_reason_done",
    "session_start",
    "session_end",
    "command_output",
    "skill_activated",
    "notify",
    "before_tool_call",
    "after_tool_call",
    "permission_request",
    "permission_decision",
    "job_exit",
    "compact",
    "subagent_start",  # SPEC §8
    "subagent_record",
    "subagent_end",
    "todo",  # the todo tool, plan mode and server-side web search (issue 28)
    "plan",
    "web_search_call",
    "web_search_results",
    "citation",
    "turn_end",
)
ALL_EVENTS = tuple(sorted(set(SPEC_EVENTS) | set(STREAM_RECORDS)))

# SPEC §4 for a prompt whose model calls a tool once, then answers (a Chat Completions
# server), up to `agent_end`: what an extension recording every event sees.
TURN_WITH_ONE_TOOL_CALL = (
    "session_start",
    "turn_start",
    "before_agent_start",
    "agent_start",
    "before_request",
    # model call 1
    "context",
    "before_provider_request",
    "after_provider_response",
    "tool_call_delta",
    "tool_call_done",
    "token_usage_done",
    "usage",
    "finish_reason_done",
    "tool_call",
    "before_tool_call",
    "tool_start",
    "tool_end",
    "after_tool_call",
    # model call 2
    "context",
    "before_provider_request",
    "after_provider_response",
    "text_delta",
    "text_done",
    "message",
    "token_usage_done",
    "usage",
    "finish_reason_done",
)

PRELUDE = '''\
import json


def record(event, **extra):
    """Log what a handler saw, as one JSON line."""
    with open(LOG, "a") as f:
        f.write(json.dumps(event.to_dict() | extra, default=str) + "\\n")


def echo(text: str) -> str:
    """Say `text` back."""
    return f"echo: {text}"
'''


@dataclass
class Extensions:
    """Writes extension files into `folder`; their `record()` calls land in `log`."""

    folder: Path
    log: Path

    @classmethod
    def make(cls, tmp_path: Path) -> Extensions:
        """A folder of extension files and an empty log under `tmp_path`."""
        folder = tmp_path / "extensions"
        folder.mkdir()
        return cls(folder, tmp_path / "seen.jsonl")

    def write(self, name: str, body: str, *, folder: Path | None = None) -> Path:
        """Write `<name>.py`: the `record` prelude, then `body` (dedented)."""
        path = (folder or self.folder) / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        source = f"LOG = {str(self.log)!r}\n{PRELUDE}\n{textwrap.dedent(body)}"
        path.write_text(source)
        return path

    def recorder(self, name: str = "recorder", events: tuple[str, ...] = ALL_EVENTS) -> Path:
        """An extension that records every one of `events`, and has an `echo` tool."""
        return self.write(
            name,
            f"""
            def extension(g):
                g.tool(echo)
                for name in {list(events)!r}:
                    g.on(name, record)
            """,
        )

    def seen(self, *types: str) -> list[dict[str, Any]]:
        """What the handlers logged, in order; only events of `types` when given."""
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [line for line in lines if not types or line["type"] in types]

    def types(self) -> list[str]:
        """The `type` of every logged event, in order."""
        return [line["type"] for line in self.seen()]

    def one(self, type_: str) -> dict[str, Any]:
        """The only logged event of `type_`."""
        found = self.seen(type_)
        assert len(found) == 1, f"{type_}: {found}"
        return found[0]

    def clear(self) -> None:
        """Forget what was logged so far."""
        self.log.unlink(missing_ok=True)


def runtime(
    tmp_path: Path,
    provider: ScriptedProvider | None,
    *extensions: Path | tuple[str, Callable[[Any], None]],
    settings: dict[str, Any] | None = None,
    **options: Any,
) -> Runtime:
    """An isolated Runtime (own home and cwd, empty env, no bundled extensions) loading
    `extensions`: files, or `(name, extension)` pairs."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    options.setdefault("bundled", False)
    options.setdefault("env", {"HOME": str(tmp_path / "user")})
    return Runtime(
        provider=provider,
        home=home,
        cwd=cwd,
        settings=settings or {},
        extensions=[from_file(e) if isinstance(e, Path) else e for e in extensions],
        **options,
    )
