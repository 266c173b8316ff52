"""Claude Code's project files: `.mcp.json` servers and `.claude/settings.json` hooks.

Both run code, so they are read only from a trusted project (SPEC §7); `claude_files` names
those present, for the notice an untrusted project gets. (`.claude/skills` is text: the skills
extension reads it whatever the trust.) Files are looked for from the working directory up to
the repository root; the nearest wins.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auger.commands.paths import upward
from auger.config.trust import TrustStore

MCP_FILE = ".mcp.json"
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json")


def _nearest(cwd: Path, rel: str) -> Path | None:
    return next((d / rel for d in upward(cwd) if (d / rel).is_file()), None)


def _object(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; `ValueError` says what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object")
    return data


def claude_files(cwd: Path) -> list[Path]:
    """The Claude Code files of the project that would run code: `.mcp.json`, and
    `.claude/settings*.json` holding hooks."""
    found = [p for p in [_nearest(cwd, MCP_FILE)] if p is not None]
    for rel in SETTINGS_FILES:
        path = _nearest(cwd, rel)
        if path is not None and _has_hooks(path):
            found.append(path)
    return found


def _has_hooks(path: Path) -> bool:
    try:
        return bool(_object(path).get("hooks"))
    except ValueError:
        return True  # unreadable: still named, never run


def trusted(home: Path, cwd: Path) -> bool:
    """Whether the project at `cwd` is trusted."""
    return TrustStore(home).is_trusted(cwd)


def mcp_servers(cwd: Path) -> dict[str, dict[str, Any]]:
    """`.mcp.json`'s `mcpServers` in auger's shape (`command`/`args`/`env`, or `url`/
    `headers`); the caller checks trust. `ValueError` for a malformed file."""
    path = _nearest(cwd, MCP_FILE)
    if path is None:
        return {}
    servers = _object(path).get("mcpServers") or {}
    if not isinstance(servers, dict):
        raise ValueError(f"{path}: mcpServers must be an object")
    out: dict[str, dict[str, Any]] = {}
    for name, raw in servers.items():
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: server {name!r} must be an object")
        if raw.get("type") in ("http", "sse") or "url" in raw:
            out[name] = {"url": raw.get("url"), "headers": raw.get("headers") or {}}
        else:
            keep = ("command", "args", "env", "cwd")
            out[name] = {k: raw[k] for k in keep if k in raw}
    return out


def hooks(cwd: Path) -> dict[str, list[Any]]:
    """The `hooks` of `.claude/settings.json` and `.claude/settings.local.json`, each event's
    groups concatenated in that order; the caller checks trust. `ValueError` for a malformed
    file."""
    merged: dict[str, list[Any]] = {}
    for rel in SETTINGS_FILES:
        path = _nearest(cwd, rel)
        if path is None:
            continue
        found = _object(path).get("hooks") or {}
        if not isinstance(found, dict):
            raise ValueError(f"{path}: hooks must be an object of events")
        for event, groups in found.items():
            if isinstance(groups, list):
                merged.setdefault(event, []).extend(groups)
    return merged


def untrusted_notice(cwd: Path, files: list[Path]) -> str:
    """The notice for Claude Code files an untrusted project has."""
    names = ", ".join(str(p.relative_to(cwd)) if p.is_relative_to(cwd) else str(p) for p in files)
    return (
        f"Claude Code project files were not loaded ({names}): this project is not trusted — "
        "run `auger trust` in it to allow them"
    )
