"""The environment of the commands the model runs (SPEC §6: no secrets).

Key-like variables — names containing KEY, SECRET, TOKEN or PASSWORD, and the variables that
settings name as providers' keys — are left out, unless `shell.env.include` names them;
`shell.env.exclude` leaves out more. In the spirit of Codex's `shell_environment_policy`, but
on by default. Hooks are the user's code and keep the user's environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

KEY_LIKE = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


class EnvPolicy(msgspec.Struct, frozen=True):
    """Which variables a model-run command does not get."""

    include: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> EnvPolicy:
        """`shell.env.include` / `exclude`, plus every `providers.*.api_key_env` left out."""
        shell = settings.get("shell")
        section = shell.get("env") if isinstance(shell, dict) else None
        section = section if isinstance(section, dict) else {}
        providers = settings.get("providers")
        named = [
            p.get("api_key_env")
            for p in (providers.values() if isinstance(providers, dict) else ())
            if isinstance(p, dict)
        ]
        return cls(
            frozenset(_strings(section.get("include"))),
            frozenset(
                [*_strings(section.get("exclude")), *(n for n in named if isinstance(n, str))]
            ),
        )

    def keeps(self, name: str) -> bool:
        """Whether a command gets the variable `name`."""
        if name in self.include:
            return True
        return name not in self.exclude and KEY_LIKE.search(name) is None

    def apply(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` without the variables left out."""
        return {k: v for k, v in env.items() if self.keeps(k)}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
