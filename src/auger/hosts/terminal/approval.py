"""The permission dialog's content: what the call would do (a file's content or diff, a command,
an MCP tool's arguments) and the choices, each saying what it allows."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from auger.hosts.terminal.text import clean
from auger.records import Decision, PermissionAnswer, PermissionRequest

Line = tuple[str, str]
"""One line of the dialog and its style class."""

TELL = "Deny, and tell the model what to do instead"
TELL_QUESTION = "What should the model do instead?"
WRITE_HEAD = 400
"""The lines of a new file shown; the rest is counted."""


def labels(request: PermissionRequest) -> dict[str, Decision | None]:
    """Each choice's label and its decision (`None`: deny, then ask what to say instead)."""
    out: dict[str, Decision | None] = {}
    for decision in request.options:
        if decision == "allow_once":
            out["Allow once"] = decision
        elif decision == "allow_session" and request.scope:
            out[f"Allow for this session: {request.scope}"] = decision
        elif decision == "allow_always":
            saved = f" — saves {request.rule}" if request.rule else ""
            out[f"Always allow{saved}"] = decision
        elif decision == "deny":
            out["Deny"] = decision
            out[TELL] = None
    return out


def answer(picked: Decision | None, feedback: str | None) -> PermissionAnswer:
    """The answer for a picked decision; declining the dialog denies and stops the turn."""
    if picked is not None:
        return PermissionAnswer(picked)
    if feedback is None:
        return PermissionAnswer("deny", stop=True)
    return PermissionAnswer("deny", feedback=feedback)


def _shown(path: str, cwd: Path) -> str:
    p = Path(path)
    try:
        return p.relative_to(cwd).as_posix()
    except ValueError:
        return path


def _diff(old: str, new: str, name: str) -> list[Line]:
    out: list[Line] = []
    for line in difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}", lineterm=""
    ):
        if line.startswith(("---", "+++")):
            out.append(("class:diff.file", line))
        elif line.startswith("@@"):
            out.append(("class:diff.hunk", line))
        elif line.startswith("+"):
            out.append(("class:diff.add", line))
        elif line.startswith("-"):
            out.append(("class:diff.del", line))
        else:
            out.append(("class:detail", line))
    return out


def _file(request: PermissionRequest, cwd: Path) -> list[Line]:
    if request.path is None or request.new_text is None:
        return []
    name = _shown(request.path, cwd)
    new = request.new_text
    if request.old_text is not None:
        return _diff(request.old_text, new, name)
    lines = new.splitlines()
    size = len(new.encode("utf-8", "surrogatepass"))
    out: list[Line] = [("class:detail.dim", f"new file {name} · {len(lines)} lines · {size} bytes")]
    out += [("class:diff.add", f"+{line}") for line in lines[:WRITE_HEAD]]
    if len(lines) > WRITE_HEAD:
        out.append(("class:detail.dim", f"… {len(lines) - WRITE_HEAD} more lines"))
    return out


def detail(request: PermissionRequest, cwd: Path) -> list[Line]:
    """What the dialog shows above its choices, one entry a line, control characters removed."""
    out: list[Line] = []
    if request.tool == "bash":
        command = str(request.args.get("command", ""))
        out += [("class:detail", f"$ {line}") for line in command.splitlines() or [""]]
        if request.cwd:
            out.append(("class:detail.dim", f"in {request.cwd}"))
        runs = ", ".join(request.runs or ()) or "(cannot be read: asks every time)"
        out.append(("class:detail.dim", f"runs: {runs}"))
    elif request.tool in ("write", "edit"):
        out += _file(request, cwd)
    if not out:
        if request.server:
            tool = request.tool.split("__", 1)[1]
            out.append(("class:detail.dim", f"MCP server {request.server} · tool {tool}"))
        pretty = json.dumps(request.args, indent=2, ensure_ascii=False, default=str)
        out += [("class:detail", line) for line in pretty.splitlines()]
    return [(style, clean(text)) for style, text in out]
