"""`/export [file]`: a session as one self-contained HTML page, or as Markdown."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

import msgspec

from auger.commands.markdown import parser
from auger.engine.context import Context
from auger.llm.messages import (
    AssistantMessage,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from auger.session.entries import (
    SUBAGENT_KIND,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
)
from auger.session.files import SessionError
from auger.session.store import SessionFile
from auger.tools import todo

Role = Literal["user", "assistant", "reasoning", "tool_call", "tool_result", "note", "image"]
MAX_RESULT_CHARS = 20_000  # of one tool result in an export


class Block(msgspec.Struct, frozen=True):
    """One thing shown in an export, in conversation order."""

    role: Role
    text: str
    title: str = ""  # a tool call's `name(args)`, an image's media type
    error: bool = False


def blocks(entries: Iterable[Entry]) -> Iterator[Block]:
    """What a branch of a session shows, block by block."""
    for entry in entries:
        if isinstance(entry, CompactionEntry):
            yield Block("note", entry.summary, "Summary of the earlier conversation")
        elif isinstance(entry, CustomMessageEntry) and entry.display:
            yield Block("note", entry.content, entry.kind)
        elif isinstance(entry, MessageEntry):
            yield from _message_blocks(entry.message)
        elif isinstance(entry, CustomEntry) and entry.kind == SUBAGENT_KIND:
            yield _subagent_block(entry.data if isinstance(entry.data, dict) else {})
        elif isinstance(entry, CustomEntry) and entry.kind == todo.KIND:
            yield Block("note", todo.checklist(entry.data), "Todo")


def _subagent_block(data: dict[str, object]) -> Block:
    """A child agent (SPEC §8): its prompt, the calls it made (read from its own session
    file) and its answer."""
    lines = [f"**Prompt:** {data.get('prompt', '')}"]
    path = data.get("session")
    if isinstance(path, str):
        try:
            child = SessionFile.open(path)
        except (SessionError, OSError):
            lines.append(f"(its session {path} cannot be read)")
        else:
            lines += [f"- ⚙ {b.title}" for b in blocks(child.branch()) if b.role == "tool_call"]
    lines.append(f"**Answer** ({data.get('stop_reason')}): {data.get('text', '')}")
    return Block("note", "\n\n".join(lines), f"Sub-agent {data.get('agent_id')}")


def _message_blocks(message: object) -> Iterator[Block]:
    if isinstance(message, UserMessage):
        for given in message.content:
            if isinstance(given, ImagePart):
                yield Block("image", given.data, given.media_type)
            elif given.text.strip():
                yield Block("user", given.text.strip())
    elif isinstance(message, AssistantMessage):
        for part in message.content:
            if isinstance(part, ReasoningPart) and part.text.strip():
                yield Block("reasoning", part.text.strip())
            elif isinstance(part, TextPart) and part.text.strip():
                yield Block("assistant", part.text.strip())
            elif isinstance(part, ToolCall):
                yield Block("tool_call", part.arguments, f"{part.name}({_brief(part.arguments)})")
    elif isinstance(message, ToolResultMessage):
        text = message.text
        if len(text) > MAX_RESULT_CHARS:
            text = text[:MAX_RESULT_CHARS] + f"\n[… {len(message.text) - MAX_RESULT_CHARS} more]"
        yield Block("tool_result", text, message.name, message.is_error)


def _brief(arguments: str) -> str:
    try:
        args = json.loads(arguments)
    except ValueError:
        return arguments[:80]
    if not isinstance(args, dict):
        return arguments[:80]
    parts = []
    for key, value in args.items():
        shown = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={shown[:60] + '…' if len(shown) > 60 else shown}")
    return ", ".join(parts)


def to_markdown(title: str, subtitle: str, shown: Iterable[Block]) -> str:
    """The blocks as a Markdown document."""
    out = [f"# {title}", "", f"_{subtitle}_", ""]
    for block in shown:
        if block.role == "user":
            out += ["## You", "", block.text, ""]
        elif block.role == "assistant":
            out += ["## auger", "", block.text, ""]
        elif block.role == "reasoning":
            out += ["> " + line for line in block.text.splitlines()] + [""]
        elif block.role == "tool_call":
            out += [f"**⚙ {block.title}**", ""]
        elif block.role == "tool_result":
            fence = "~~~~" if "```" in block.text else "```"
            label = " (error)" if block.error else ""
            out += [f"{fence}text{label}", block.text, fence, ""]
        elif block.role == "image":
            out += [f"![image](data:{block.title};base64,{block.text})", ""]
        else:
            out += [f"**{block.title}**", "", block.text, ""]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font:15px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f;background:#fff}
header{border-bottom:1px solid #ddd;margin-bottom:1.5rem}h1{font-size:1.4rem;margin:0}
header p{color:#666;margin:.3rem 0 1rem}
.msg{margin:1rem 0;padding:.6rem .9rem;border-radius:8px}
.user{background:#eef4ff;border-left:4px solid #3b6fd8}
.assistant{background:#f7f7f7;border-left:4px solid #888}
.role{font-weight:600;font-size:.85rem;color:#555;margin-bottom:.2rem}
.note{background:#fff8e1;border-left:4px solid #d9a400}
details{margin:.4rem 0 .4rem 1rem}summary{cursor:pointer;font-family:monospace;color:#335}
.error summary{color:#b00020}.reasoning{color:#666;font-style:italic}
pre{background:#f0f0f0;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
code{font-family:ui-monospace,monospace;font-size:.9em}img{max-width:100%}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}
"""


def to_html(title: str, subtitle: str, shown: Iterable[Block]) -> str:
    """The blocks as one HTML page with its style inline: no script, nothing fetched."""
    md = parser()
    esc = html.escape
    body: list[str] = []
    for block in shown:
        if block.role == "user":
            body.append(_msg("user", "You", f"<pre>{esc(block.text)}</pre>"))
        elif block.role == "assistant":
            body.append(_msg("assistant", "auger", md.render(block.text)))
        elif block.role == "reasoning":
            body.append(
                f'<details class="reasoning"><summary>reasoning</summary>'
                f"<pre>{esc(block.text)}</pre></details>"
            )
        elif block.role == "tool_call":
            body.append(f'<div class="call"><code>⚙ {esc(block.title)}</code></div>')
        elif block.role == "tool_result":
            cls = ' class="error"' if block.error else ""
            body.append(
                f"<details{cls}><summary>{esc(block.title)} result</summary>"
                f"<pre>{esc(block.text)}</pre></details>"
            )
        elif block.role == "image":
            body.append(f'<img alt="image" src="data:{esc(block.title)};base64,{esc(block.text)}">')
        else:
            body.append(_msg("note", esc(block.title), md.render(block.text)))
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n<body>"
        f"<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header>\n<main>\n"
        + "\n".join(body)
        + "\n</main></body></html>\n"
    )


def _msg(cls: str, role: str, inner: str) -> str:
    return f'<section class="msg {cls}"><div class="role">{role}</div>{inner}</section>'


async def export(ctx: Context) -> None:
    """`/export [file]`: write the session as HTML (`.md`: Markdown); no file, both, beside
    the session's own file (or in the temp folder for an unsaved one), never the project."""
    session = ctx.session
    shown = list(blocks(session.branch()))
    if not shown:
        await ctx.say("Nothing to export: the session is empty.")
        return
    title = session.name or session.header.title or f"auger session {ctx.session_id}"
    subtitle = f"session {ctx.session_id} · {ctx.model} · {session.header.created[:10]}"
    arg = ctx.args.strip()
    if arg:
        targets = [(ctx.cwd / Path(arg).expanduser()).resolve()]
    else:
        folder = _export_folder(session.path if session.persist else None)
        targets = [folder / f"auger-{ctx.session_id}.{s}" for s in ("html", "md")]
    written = []
    for path in targets:
        markdown = path.suffix.lower() in (".md", ".markdown")
        text = to_markdown(title, subtitle, shown) if markdown else to_html(title, subtitle, shown)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            ctx.notify(f"cannot write {path}: {exc.strerror or exc}", "error")
            return
        written.append(str(path))
    await ctx.say("Exported to " + " and ".join(written))


def _export_folder(session_file: Path | None) -> Path:
    """Beside the saved session, when that folder can be written; else the temp folder."""
    import os
    import tempfile

    if session_file is not None and os.access(session_file.parent, os.W_OK):
        return session_file.parent
    return Path(tempfile.gettempdir()) / "auger-exports"
