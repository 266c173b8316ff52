"""The `edit` tool: exact string replacements in a file, all or nothing, shown as a diff."""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from itertools import pairwise
from typing import Any, TypedDict

from auger.tools.base import ToolContext, ToolError, tool
from auger.tools.files import Stamp, is_binary, open_regular, read_whole, write_file
from auger.tools.paths import display

CONTEXT_LINES = 3
MAX_EDIT_BYTES = 64 * 1024 * 1024
"""The largest file edit loads; a bigger one is a job for bash (sed)."""

# Characters a model tends to type differently from a file: curly quotes, dashes, odd spaces.
# Each maps to one character, so folding keeps every offset.
_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′", "'"),
        **dict.fromkeys("“”„‟″", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        **dict.fromkeys("\u00a0\u2002\u2003\u2007\u2009\u200a\u202f\u205f\u3000", " "),
    }
)
_TRAILING_SPACE = re.compile(r"[ \t\r]+(?=\n|\Z)")


class _Replacement(TypedDict):
    old_string: str
    new_string: str


class Edit(_Replacement, total=False):
    """One replacement: `old_string` becomes `new_string`, once or everywhere."""

    replace_all: bool


Span = tuple[int, int, str]


def _fold(text: str) -> str:
    return _TRAILING_SPACE.sub("", text.translate(_FOLD))


class _Folded:
    """A text with quotes, dashes and spaces folded and trailing blanks dropped, mapping its
    offsets back to the original."""

    def __init__(self, text: str) -> None:
        folded = text.translate(_FOLD)
        pieces: list[str] = []
        self._cuts: list[int] = []  # where, in the folded text, a run of blanks was dropped
        self._dropped: list[int] = []  # how many characters were dropped up to there
        previous = dropped = 0
        for m in _TRAILING_SPACE.finditer(folded):
            pieces.append(folded[previous : m.start()])
            self._cuts.append(m.start() - dropped)
            dropped += m.end() - m.start()
            self._dropped.append(dropped)
            previous = m.end()
        pieces.append(folded[previous:])
        self.text = "".join(pieces)

    def original(self, pos: int) -> int:
        """The original offset of the folded text's character at `pos`."""
        i = bisect_right(self._cuts, pos)
        return pos + (self._dropped[i - 1] if i else 0)


def _positions(haystack: str, needle: str, count: int) -> list[int]:
    found: list[int] = []
    at = haystack.find(needle)
    while at >= 0 and len(found) < count:
        found.append(at)
        at = haystack.find(needle, at + len(needle))
    return found


def replace(text: str, edits: list[tuple[str, str, bool]]) -> tuple[str, list[Span], bool]:
    """Apply `(old, new, replace_all)` edits to `text`, each matched in the original.

    An exact match is tried first; failing that, one that ignores trailing blanks and quote, dash
    and space variants, replacing only the matched region. Returns the new text, the replaced
    spans `(start, end, new)` in order, and whether any edit needed the loose match.
    """
    spans: list[tuple[int, int, str, int]] = []
    folded: _Folded | None = None
    loose = False
    for index, (old, new, every) in enumerate(edits, 1):
        where = f"edit {index}: " if len(edits) > 1 else ""
        haystack, needle = text, old
        count = text.count(old)
        exact = count > 0
        if not exact:
            folded = folded or _Folded(text)
            haystack, needle = folded.text, _fold(old)
            count = haystack.count(needle) if needle else 0
        if not count:
            raise ToolError(
                "not_found",
                f"{where}old_string was not found. It must match the file exactly, whitespace "
                "included; read the file again and copy the text.",
            )
        if count > 1 and not every:
            raise ToolError(
                "ambiguous",
                f"{where}old_string matches {count} places. Include more surrounding lines to "
                "pick one, or set replace_all to change them all.",
            )
        starts = _positions(haystack, needle, count)
        if exact:
            regions = [(start, start + len(needle)) for start in starts]
        else:
            assert folded is not None
            loose = True
            last = len(needle) - 1
            regions = [(folded.original(s), folded.original(s + last) + 1) for s in starts]
        spans.extend((start, end, new, index) for start, end in regions)
    spans.sort()
    for before, after in pairwise(spans):
        if after[0] < before[1]:
            raise ToolError(
                "overlapping_edits",
                f"edits {before[3]} and {after[3]} overlap; merge them into one edit",
            )
    pieces: list[str] = []
    previous = 0
    for start, end, new, _ in spans:
        pieces += (text[previous:start], new)
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces), [(s, e, n) for s, e, n, _ in spans], loose


def _window_start(text: str, pos: int) -> int:
    start = text.rfind("\n", 0, pos) + 1
    for _ in range(CONTEXT_LINES):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _window_end(text: str, pos: int) -> int:
    end = _line_end(text, pos)
    for _ in range(CONTEXT_LINES):
        if end + 1 >= len(text):
            break
        end = _line_end(text, end + 1)
    return end


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _range(start: int, length: int) -> str:
    """A hunk's line range as `unified_diff` writes it."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def unified_diff(old: str, new: str, spans: list[Span], name: str) -> str:
    """A unified diff of `old` → `new`, looking only at the lines around the replaced spans, so
    a small edit to a large file stays cheap."""
    import difflib

    # Each window: its start and end in `old`, and how far `new` is shifted at either end.
    windows: list[tuple[int, int, int, int]] = []
    shift = 0
    for start, end, text in spans:
        before = shift
        shift += len(text) - (end - start)
        w_start, w_end = _window_start(old, start), _window_end(old, end)
        if windows and w_start <= windows[-1][1] + 1:
            w_start, _, before, _ = windows.pop()
        windows.append((w_start, w_end, before, shift))
    out = [f"--- {name}", f"+++ {name}"]
    old_line = new_line = old_at = new_at = 0
    for w_start, w_end, before, after in windows:
        old_line += old.count("\n", old_at, w_start)
        new_line += new.count("\n", new_at, w_start + before)
        old_at, new_at = w_start, w_start + before
        a = old[w_start:w_end].split("\n")
        b = new[w_start + before : w_end + after].split("\n")
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            out.append(f"@@ -{_range(old_line + i1, i2 - i1)} +{_range(new_line + j1, j2 - j1)} @@")
            for tag, a1, a2, b1, b2 in group:
                if tag == "equal":
                    out += (" " + line for line in a[a1:a2])
                    continue
                out += ("-" + line for line in a[a1:a2])
                out += ("+" + line for line in b[b1:b2])
    return "\n".join(out)


def _requested(
    edits: list[Edit] | None, old_string: str | None, new_string: str | None, replace_all: bool
) -> list[tuple[str, str, bool]]:
    if edits and old_string is not None:
        raise ToolError("validation_error", "give either edits or old_string/new_string, not both")
    if not edits:
        if old_string is None or new_string is None:
            raise ToolError("validation_error", "give edits, or old_string and new_string")
        edits = [{"old_string": old_string, "new_string": new_string, "replace_all": replace_all}]
    out = []
    for index, item in enumerate(edits, 1):
        if not isinstance(item, dict):
            raise ToolError("validation_error", f"edit {index} is not an object")
        old, new = item.get("old_string"), item.get("new_string")
        every = item.get("replace_all", False)
        if not isinstance(old, str) or not isinstance(new, str) or not isinstance(every, bool):
            raise ToolError(
                "validation_error",
                f"edit {index}: old_string and new_string must be strings, replace_all a boolean",
            )
        if not old:
            raise ToolError(
                "validation_error", f"edit {index}: old_string is empty; use write to create files"
            )
        if old == new:
            raise ToolError("no_change", f"edit {index}: old_string and new_string are the same")
        out.append((old.replace("\r\n", "\n"), new.replace("\r\n", "\n"), every))
    return out


async def edit(
    path: str,
    edits: list[Edit] | None = None,
    old_string: str | None = None,
    new_string: str | None = None,
    replace_all: bool = False,
    *,
    ctx: ToolContext,
) -> str:
    """Replace exact text in a file and return the diff. old_string must match one place (or
    set replace_all); several changes go in edits, each matched in the original, all or none.
    Read the file first and copy old_string from it, with enough context to be unique.
    """
    requested = _requested(edits, old_string, new_string, replace_all)
    target = ctx.resolve(path)
    shown = display(target, ctx.cwd)
    ctx.check_readable(target, shown)
    ctx.check_write(target, shown)
    with open_regular(target, shown) as file:
        stamp = Stamp.of(os.fstat(file.fileno()))
        data = read_whole(file, shown, MAX_EDIT_BYTES)
    if is_binary(data):
        raise ToolError("binary_file", f"{shown} is a binary file")
    if ctx.files is not None:
        ctx.files.check(target, shown, stamp)
    # surrogateescape carries bytes that are not UTF-8 through unchanged.
    text = data.decode("utf-8", "surrogateescape")
    bom = text.startswith("\ufeff")
    text = text.removeprefix("\ufeff")
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    try:
        result, spans, loose = replace(text, requested)
    except ToolError as exc:
        unread = ctx.files is not None and not ctx.files.seen(target)
        if exc.error_type == "not_found" and unread:
            exc.message += f" You have not read {shown} yet: read it first."
        raise
    if result == text:
        raise ToolError("no_change", f"the edits leave {shown} unchanged")
    out = result.replace("\n", "\r\n") if crlf else result
    data = (("\ufeff" if bom else "") + out).encode("utf-8", "surrogateescape")
    written = write_file(target, data, shown, expected=stamp)
    if ctx.files is not None:
        ctx.files.saw(target, written)
    count = len(spans)
    note = " (matched ignoring whitespace and quote/dash differences)" if loose else ""
    summary = f"Edited {shown}: {count} replacement{'s' if count != 1 else ''}{note}"
    report = f"{summary}\n\n{unified_diff(text, result, spans, shown)}"
    # Bytes that are not UTF-8 ride along as surrogates; the model is shown U+FFFD instead.
    return report.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


TOOL = tool(edit)


def extension(g: Any) -> None:
    """Registers `edit`."""
    g.tool(TOOL)
