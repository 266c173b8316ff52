"""What a shell command line would run (SPEC §6), read by a real bash parser (tree-sitter-bash).

`analyse(line)` walks the syntax tree: compound commands, pipelines, lists, subshells and
command substitutions are decomposed into simple commands; leading assignments and wrappers
(`env`, `command`, `exec`, `nice`, `nohup`, `time`, `timeout`, `stdbuf`, `xargs`, `sudo`,
`doas`, …) are stripped to the command they run; `find -exec` yields its command; `bash -c`
with a literal script is read recursively; quoting, `$'…'` and backslashes are resolved; a
path-qualified command is named by its basename. What cannot be read statically (`eval`, a
command word built by expansion, `source` of a non-literal, a script fed to a shell on its
input, a function or alias defined on the line, a line that does not parse) makes the line
*opaque*, with the reason. Redirections to files are collected as writes.
"""

from __future__ import annotations

import codecs
import re
import shlex
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"})
QUIET = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
MAX_DEPTH = 8  # nested `bash -c` scripts read at most
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
DYN = "\x00"  # marks a word built at run time (followed by its source text)
# wrapper → (options that take a value, whether the first operand is consumed before the command)
WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "nohup": (frozenset(), 0),
    "time": (frozenset({"-f", "--format", "-o", "--output"}), 0),
    "timeout": (frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), 0),
    "setsid": (frozenset(), 0),
    "ionice": (frozenset({"-c", "-n", "-p", "--class", "--classdata"}), 0),
    "sudo": (frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U"}), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "xargs": (
        frozenset(
            {"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--max-args", "--max-procs"}
            | {"--arg-file", "--delimiter", "--max-lines", "--max-chars", "--replace"}
        ),
        0,
    ),
    "env": (frozenset({"-u", "--unset", "-C", "--chdir"}), 0),
    "busybox": (frozenset(), 0),  # `busybox rm x` runs the applet `rm`
    "unbuffer": (frozenset(), 0),
    "chrt": (frozenset(), 1),
    "taskset": (frozenset(), 1),
    "flock": (frozenset({"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"}), 1),
}
# programs whose option takes a shell script they run (`su -c 'rm x'`, `flock F -c …`)
SCRIPT_OPTIONS: dict[str, tuple[str, ...]] = {
    "su": ("-c", "--command"),
    "runuser": ("-c", "--command"),
    "flock": ("-c", "--command"),
    "script": ("-c", "--command"),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class Command(msgspec.Struct, frozen=True):
    """One simple command as it would run: its words, the program named by its basename."""

    words: tuple[str, ...]

    @property
    def name(self) -> str:
        """The program's name (`rm` for `/usr/bin/rm`)."""
        return self.words[0]

    @property
    def text(self) -> str:
        """The command as one line rules match against."""
        return shlex.join(self.words)


class Analysis(msgspec.Struct, frozen=True):
    """What a command line runs: the commands themselves (wrappers stripped), the wrapper
    forms too (`sudo rm x` as well as `rm x`, so a deny rule on either holds), the files
    redirected to, and why it cannot be read statically (empty when it can)."""

    commands: tuple[Command, ...] = ()
    wrappers: tuple[Command, ...] = ()
    writes: tuple[str, ...] = ()
    opaque: tuple[str, ...] = ()

    def names(self) -> list[str]:
        """The programs the line runs, once each, in order."""
        return list(dict.fromkeys(c.name for c in self.commands))


class ShellSyntaxError(ValueError):
    """A rule's command text that shlex cannot split (an unclosed quote)."""


def words(command: str) -> list[str]:
    """A rule specifier's words as the shell reads them (quotes removed)."""
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError as exc:
        raise ShellSyntaxError(str(exc)) from None


@cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


@lru_cache(maxsize=64)  # a call is decided, suggested a rule and described: one parse
def analyse(line: str) -> Analysis:
    """Everything `line` would run, as far as can be read without running it."""
    walk = _Walk()
    walk.script(line, 0)
    return Analysis(
        tuple(walk.commands), tuple(walk.wrappers), tuple(walk.writes), tuple(walk.opaque)
    )


class _Walk:
    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.wrappers: list[Command] = []
        self.writes: list[str] = []
        self.opaque: list[str] = []

    def script(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.opaque.append("shell scripts nested too deep")
            return
        tree = _parser().parse(text.encode("utf-8", "surrogateescape"))
        if tree.root_node.has_error:
            self.opaque.append("the command line does not parse as bash")
            return
        self.node(tree.root_node, depth)

    def node(self, node: Node, depth: int) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, depth)
        elif kind == "function_definition":
            self.opaque.append("it defines a shell function")
        elif kind in REDIRECTS:
            self.redirect(node, depth)
        else:
            for child in node.named_children:
                self.node(child, depth)

    def redirect(self, node: Node, depth: int) -> None:
        for child in node.named_children:
            self.node(child, depth)  # substitutions in a target or a here-document run
        if node.type != "file_redirect":
            return
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = node.named_children[-1] if node.named_children else None
        if ">" not in operator or target is None or target.type == "file_descriptor":
            return
        text = literal(target)
        if operator in (">&", "<&") and (text == "-" or (text or "").isdigit()):
            return  # 2>&1: a copied descriptor, not a file
        if text not in QUIET:
            self.writes.append(text if text is not None else _source(target))

    def command(self, node: Node, depth: int) -> None:
        argv: list[str] = []
        for child in node.named_children:
            self.node(child, depth)  # substitutions in any word, assignment or redirect run
            if child.type == "command_name":
                argv.append(_word(child.named_children[0]) if child.named_children else DYN)
            elif argv and child.type not in REDIRECTS:
                argv.append(_word(child))
        if argv:
            self.argv(argv, depth)

    def argv(self, argv: list[str], depth: int) -> None:
        """Strip wrappers off `argv` and record what it runs."""
        while argv and _ASSIGNMENT.match(argv[0]):
            argv = argv[1:]  # env's NAME=VALUE operands
        if not argv:
            return
        if argv[0].startswith(DYN):
            self.opaque.append(f"the command name {_shown(argv[0])!r} is built at run time")
            return
        name = argv[0].rsplit("/", 1)[-1] or argv[0]
        shown = Command(tuple(_shown(w) for w in [name, *argv[1:]]))
        if name in SCRIPT_OPTIONS and self.script_option(argv, shown, depth):
            return
        if name == "watch":  # `watch CMD…` runs its words as a shell command line
            words = _after_options(argv[1:], frozenset({"-n", "--interval", "-d"}), 0)
            if words:
                self.wrappers.append(shown)
                if any(w.startswith(DYN) for w in words):
                    self.opaque.append("watch runs a command built at run time")
                else:
                    self.script(" ".join(words), depth + 1)
                return
        if name in WRAPPERS and not (name == "command" and _has(argv, "-v", "-V")):
            if name == "env" and _has(argv, "-S", "--split-string"):
                self.opaque.append("env -S splits a string into a command")
                return
            rest = _after_options(argv[1:], *WRAPPERS[name])
            if rest:
                self.wrappers.append(shown)
                self.argv(rest, depth)
                return
        if name in ("eval", "alias", "trap"):
            self.opaque.append(f"{name} runs text as a command")
            return
        if name in ("source", ".") and (
            len(argv) < 2 or argv[1].startswith((DYN, "/dev/", "/proc/"))
        ):
            self.opaque.append(f"{name} reads a script that is not a literal file")
            return
        if name in SHELLS and self.shell(argv, shown, depth):
            return
        if name == "find":
            self.find(argv, depth)
        self.commands.append(shown)

    def shell(self, argv: list[str], shown: Command, depth: int) -> bool:
        """Read `sh -c SCRIPT` recursively; whether `argv` was handled so (a shell given a
        script file is a command like any other)."""
        words = iter(enumerate(argv[1:], 1))
        for i, word in words:
            if word in ("-o", "+o", "-O", "+O"):
                next(words, None)
            elif word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
                script = argv[i + 1] if i + 1 < len(argv) else DYN
                self.wrappers.append(shown)
                if script.startswith(DYN):
                    self.opaque.append(f"{argv[0]} -c runs a script built at run time")
                else:
                    self.script(script, depth + 1)
                return True
            elif not word.startswith(("-", "+")):
                if word.startswith((DYN, "/dev/", "/proc/")):
                    break
                return False
        self.wrappers.append(shown)
        self.opaque.append(f"{argv[0]} reads its script from its input")
        return True

    def script_option(self, argv: list[str], shown: Command, depth: int) -> bool:
        """Read `su -c SCRIPT` (and the like) recursively; whether `argv` had such a script."""
        flags = SCRIPT_OPTIONS[_shown(argv[0]).rsplit("/", 1)[-1]]
        for i, word in enumerate(argv[1:], 1):
            flag, eq, inline = word.partition("=")
            if word in flags or (eq and flag in flags):
                script = inline if eq else (argv[i + 1] if i + 1 < len(argv) else DYN)
                self.wrappers.append(shown)
                if script.startswith(DYN):
                    self.opaque.append(f"{argv[0]} runs a script built at run time")
                else:
                    self.script(script, depth + 1)
                return True
        return False

    def find(self, argv: list[str], depth: int) -> None:
        i = 1
        while i < len(argv):
            if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(argv)) if argv[j] in (";", "+")), len(argv))
                if end > i + 1:
                    self.argv(argv[i + 1 : end], depth)
                i = end
            i += 1


def _has(argv: list[str], *flags: str) -> bool:
    return any(w in flags for w in argv[1:])


def _after_options(args: list[str], valued: frozenset[str], operands: int) -> list[str]:
    """`args` with a wrapper's options (and `operands` leading operands) taken off."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if word.startswith("-") and len(word) > 1:
            flag = word.split("=", 1)[0]
            i += 2 if flag in valued and "=" not in word else 1
            continue
        break
    return args[i + operands :]


def _shown(word: str) -> str:
    return word.removeprefix(DYN)


def _source(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _word(node: Node) -> str:
    """The text of a word after quote removal; built at run time, DYN and its source."""
    text = literal(node)
    return DYN + _source(node) if text is None else text


def literal(node: Node) -> str | None:
    """The word `node` stands for after quote removal, or None when expansion builds it."""
    kind = node.type
    text = _source(node)
    if kind in ("word", "number", "special_variable_name") or kind == "variable_name":
        return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL) if kind == "word" else text
    if kind == "raw_string":
        return text[1:-1]
    if kind == "ansi_c_string":
        try:
            return codecs.decode(text[2:-1], "unicode_escape")
        except (UnicodeDecodeError, ValueError):
            return None
    if kind in ("string", "translated_string"):
        parts = []
        for child in node.named_children:
            if child.type != "string_content":
                return None
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", _source(child)))
        return "".join(parts)
    if kind == "concatenation":
        pieces = [literal(c) for c in node.named_children]
        return None if any(p is None for p in pieces) else "".join(p or "" for p in pieces)
    return None
