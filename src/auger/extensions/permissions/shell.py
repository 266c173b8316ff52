"""The simple commands inside a shell command line, for matching them one by one (SPEC §6).

`shlex` splits words but knows nothing of `$(…)`, backticks or `2>&1`, and `bashlex` is GPL; this
scanner does only the part shlex cannot: it cuts at the operators bash runs commands between
(`&&`, `||`, `;`, `|`, `|&`, `&`, newlines, `(`/`)` subshells) and pulls out every command
substitution (`$(…)`, backticks, `<(…)`, `>(…)`), unquoted or inside double quotes. It errs
towards more parts: a part that is not really a command only makes a rule match less often.
"""

from __future__ import annotations

import shlex


class ShellSyntaxError(ValueError):
    """The command line cannot be read (an unclosed quote or substitution)."""


def split_commands(command: str) -> list[str]:
    """Every simple command in `command`, outer ones first, each stripped; `ShellSyntaxError`
    when a quote or substitution is left open."""
    parts: list[str] = []
    _scan(command, 0, parts, closer=None)
    return [p for p in parts if p]


def words(command: str) -> list[str]:
    """A simple command's words as the shell reads them (quotes removed)."""
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError as exc:
        raise ShellSyntaxError(str(exc)) from None


def _scan(text: str, i: int, parts: list[str], closer: str | None) -> int:
    """Scan from `i` to the end, or to `closer` (`)` or a backtick); returns the index after
    the closer."""
    current: list[str] = []
    quote: str | None = None
    depth = 0  # open `(` subshells of this scan

    def cut() -> None:
        parts.append("".join(current).strip())
        current.clear()

    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if quote == "'":
            quote = None if c == "'" else quote
            current.append(c)
            i += 1
        elif c == "\\" and nxt:
            current.append(c + nxt)
            i += 2
        elif c == "`" and closer == "`":
            cut()
            return i + 1
        elif c == "`" or (c in "$<>" and nxt == "("):
            start = i + (1 if c == "`" else 2)
            end = _scan(text, start, parts, closer="`" if c == "`" else ")")
            current.append(text[i:end])
            i = end
        elif quote == '"':
            quote = None if c == '"' else quote
            current.append(c)
            i += 1
        elif c in "'\"":
            quote = c
            current.append(c)
            i += 1
        elif c == ")" and depth == 0 and closer == ")":
            cut()
            return i + 1
        elif c in ";\n()":
            depth += (c == "(") - (c == ")" and depth > 0)
            cut()
            i += 1
        elif c == "|":
            cut()
            i += 2 if nxt in "|&" else 1
        elif c == "&" and nxt != "&" and (text[i - 1 : i] in ("<", ">") or nxt == ">"):
            current.append(c)  # a redirection: 2>&1, &>file
            i += 1
        elif c == "&":  # `a && b`, or `a & b` (both run)
            cut()
            i += 2 if nxt == "&" else 1
        else:
            current.append(c)
            i += 1
    if quote is not None:
        raise ShellSyntaxError(f"unclosed {quote} quote")
    if closer is not None:
        raise ShellSyntaxError(f"unclosed {'$(' if closer == ')' else '`'}")
    cut()
    return i
