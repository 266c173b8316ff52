"""What the permission step knows about commands and paths beyond the rules (SPEC §6): which
shell commands only read (they run in the `read-only` planning mode) and which project paths
are protected (what auger or git later reads as configuration that can run code).
"""

from __future__ import annotations

from auger.extensions.permissions.rules import Call, real
from auger.extensions.permissions.shell import Command
from auger.tools.sandbox import PROTECTED

# Commands that only read, whatever their arguments (beyond the checks of `read_only`).
# fmt: off
READERS = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "printf",
    "which", "file", "stat", "du", "df", "tree", "cut", "tr", "nl", "diff", "cmp", "basename",
    "dirname", "realpath", "readlink", "date", "whoami", "id", "uname", "hostname", "true",
    "false", "test", "[", "jq", "less", "more", "column", "comm", "expand", "fold", "fmt", "od",
    "hexdump", "md5sum", "sha1sum", "sha256sum", "type", "uptime", "printenv", "seq",
})
GIT_READERS = frozenset({
    "status", "diff", "log", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse",
    "describe", "cat-file", "shortlog", "show-ref", "reflog",
})
# fmt: on
# `find` predicates that run or write something
FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)


def read_only(command: Command) -> bool:
    """Whether `command` only reads: a reader from the documented list, `git` with a reading
    subcommand (no `-c`, `--output`, `--ext-diff`), `find` without actions, `sort` without -o."""
    name, args = command.name, command.words[1:]
    if name in READERS:
        return True
    if name == "find":
        return not any(a in FIND_ACTIONS for a in args)
    if name == "sort":
        return not any(a == "-o" or a.startswith(("-o", "--output")) for a in args)
    if name == "git":
        sub = next((a for a in args if not a.startswith("-")), None)
        risky = any(
            a == "-c" or a.startswith(("--output", "--ext-diff", "-c", "--exec-path")) for a in args
        )
        return sub in GIT_READERS and not risky
    return False


def protected(call: Call) -> str | None:
    """Why writing the file `call` names needs the user's say (a protected path inside the
    project), else `None`."""
    path = call.path()
    project = real(call.project)
    if path is None or not call.inside():
        return None
    for rel in PROTECTED:
        guarded = project / rel
        if path == guarded or guarded in path.parents:
            return (
                f"{rel} is protected: auger or git reads it as configuration that can run code "
                "the next time they start"
            )
    return None
