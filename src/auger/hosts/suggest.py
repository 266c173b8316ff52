"""Near-miss suggestions before anything runs: a mistyped flag, a mistyped model name."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Mapping
from typing import Any

CLOSE = 0.85
"""How alike a catalog name must be to be offered for a name the catalog does not know."""


def unrecognized(p: argparse.ArgumentParser, unknown: list[str]) -> str:
    """The error for arguments no option takes, with the flag each mistyped one likely was."""
    flags = [flag for action in p._actions for flag in action.option_strings]
    hints = []
    for word in unknown:
        typed = word.partition("=")[0]
        if typed.startswith("--"):
            close = difflib.get_close_matches(typed, flags, n=1, cutoff=0.7)
            if close:
                hints.append(f"{typed}: did you mean {close[0]}?")
    return "unrecognized arguments: " + " ".join(unknown) + "".join(f" — {h}" for h in hints)


def mistyped_model(spec: str, settings: Mapping[str, Any]) -> str | None:
    """Why `provider/name` is most likely a typo: the catalog knows the provider but not the
    name, nor do settings, and knows a name very like it. `None` when it may well be real."""
    from auger.config import BUILTIN
    from auger.llm import blocks

    provider, _, name = spec.partition("/")
    block = blocks().get(provider)
    if block is None or not name or BUILTIN.get(provider, {}).get("signin"):
        return None  # a signed-in account offers models of its own, fetched at sign-in
    names = {*block.models, *block.snapshots, *block.aliases, *block.retired}
    providers = settings.get("providers")
    own = providers.get(provider) if isinstance(providers, dict) else None
    models = own.get("models") if isinstance(own, dict) else None
    if name in names or (isinstance(models, dict) and name in models):
        return None
    close = difflib.get_close_matches(name, sorted(names), n=1, cutoff=CLOSE)
    if not close:
        return None
    return (
        f"model {spec!r} is not in the catalog — did you mean {provider}/{close[0]}? "
        f"(a model the catalog does not know yet: declare it under providers.{provider}.models "
        "in settings)"
    )
