"""The one way auger runs git itself (SPEC §6: git is inert).

A repository's own configuration is data a stranger may have written: `core.fsmonitor`,
`core.hooksPath`, pagers, filters, textconv, external diff and includes would run code as the
user. Every git call auger makes goes through `git_command`: the system and global
configuration are not read, the `GIT_*` variables of the environment are dropped, and the keys
that name programs are overridden on the command line (which outranks every configuration
file, included ones too). Commands that could apply filters or textconv get `--no-textconv`
style flags from their callers; auger's own calls (`ls-files`, the shadow store's `add`,
`write-tree`, `diff --name-only`, `ls-tree`, `checkout`) run none against the user's config.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

OVERRIDES = (
    "core.fsmonitor=false",
    "core.hooksPath=" + os.devnull,
    "core.pager=cat",
    "core.editor=true",
    "core.sshCommand=false",
    "core.askPass=",
    "core.untrackedCache=false",
    "diff.external=",
    "credential.helper=",
    "gpg.program=false",
    "sequence.editor=true",
    "protocol.allow=never",
    "uploadpack.packObjectsHook=",
    "core.alternateRefsCommand=",
    "gc.auto=0",
    "maintenance.auto=false",
)
_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
}


def git_command(
    args: list[str], env: Mapping[str, str], git: str = "git", extra: Mapping[str, str] = {}
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that run `git args` with the repository's configuration inert;
    `extra` adds variables (an identity, say) after the `GIT_*` ones are dropped."""
    settings = [arg for setting in OVERRIDES for arg in ("-c", setting)]
    clean = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    return [git, "--no-pager", *settings, *args], clean | _ENV | dict(extra)
