"""The bundled extensions, and turning what `Runtime(extensions=…)` accepts into sources."""

from __future__ import annotations

from auger.extensions.source import Extension, Source, from_callable


def bundled() -> tuple[list[Source], list[Source]]:
    """The bundled extensions: those loaded first, and those loaded after every other one
    (skills, templates and MCP, so they see the skill folders, commands and MCP servers others
    added)."""
    from auger.commands import agents_md, builtin, login, skills, templates, undo
    from auger.extensions import claude_hooks
    from auger.extensions.mcp import McpServers
    from auger.extensions.permissions import Permissions
    from auger.extensions.subagents import extension as subagents
    from auger.tools.builtin import extensions

    first: list[tuple[str, Extension]] = [
        *extensions(),
        ("subagents", subagents),
        ("commands", builtin.extension),
        ("checkpoints", undo.extension),
        ("login", login.extension),
        ("agents_md", agents_md.extension),
        ("claude_hooks", claude_hooks.extension),
    ]
    last: list[tuple[str, Extension]] = [
        ("templates", templates.extension),
        ("skills", skills.extension),
        ("mcp", McpServers()),
        ("permissions", Permissions()),  # last: after every other tool_call handler (SPEC §6)
    ]
    return [_source(name, fn) for name, fn in first], [_source(name, fn) for name, fn in last]


def _source(name: str, fn: Extension) -> Source:
    return Source(name, lambda: fn)


def as_source(ext: Source | Extension | tuple[str, Extension]) -> Source:
    """A `Source` for anything `Runtime(extensions=…)` accepts."""
    if isinstance(ext, Source):
        return ext
    if isinstance(ext, tuple):
        return from_callable(ext[1], ext[0])
    return from_callable(ext)
