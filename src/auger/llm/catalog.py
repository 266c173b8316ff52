"""The model catalog: context windows, prices and aliases, kept in `catalog.json` beside this file.

The file holds one block per provider: the date its numbers were checked, the pages they came
from, its models, its aliases and its retired models. Names resolve by exact name, then alias,
then — for a bare name without a provider — a unique partial match; an ambiguous name lists its
candidates, and a retired one names its replacement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from auger.llm.provider import Model
from auger.llm.usage import Pricing


class Retirement(msgspec.Struct, frozen=True):
    """When a model stopped answering, and what its provider says to use instead."""

    on: str
    use: str


class ProviderBlock(msgspec.Struct, frozen=True):
    """One provider's part of the catalog."""

    checked: str
    sources: list[str]
    models: dict[str, dict[str, Any]]
    aliases: dict[str, str] = msgspec.field(default_factory=dict)  # sent as the model named
    snapshots: dict[str, str] = msgspec.field(default_factory=dict)  # sent as written
    retired: dict[str, Retirement] = msgspec.field(default_factory=dict)
    hosts: bool = False  # a cloud serving other makers' models: a bare name prefers the maker


class Ambiguous(LookupError):
    """A name that matches more than one model; `candidates` lists them as `provider/name`."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        super().__init__(f"{name!r} could be {', '.join(candidates)}")
        self.name = name
        self.candidates = candidates


class Retired(LookupError):
    """A model its provider no longer serves: `replacement` is the `provider/name` to use."""

    def __init__(self, model: str, retirement: Retirement) -> None:
        provider = model.partition("/")[0]
        self.model = model
        self.replacement = f"{provider}/{retirement.use}"
        super().__init__(f"{model} was retired on {retirement.on} — use {self.replacement} instead")


@cache
def blocks() -> dict[str, ProviderBlock]:
    """The catalog by provider."""
    data = json.loads((Path(__file__).parent / "catalog.json").read_text())
    return {
        name: msgspec.convert({k: v for k, v in block.items() if k != "_note"}, ProviderBlock)
        for name, block in data.items()
        if not name.startswith("_")
    }


def known_models(provider: str | None = None) -> list[str]:
    """Every `provider/name` in the catalog (of one provider, when given)."""
    return sorted(
        f"{p}/{m}" for p, b in blocks().items() if provider in (None, p) for m in b.models
    )


def canonical(provider: str, name: str) -> str:
    """`name` with the provider's alias applied (an unknown name is returned as it is)."""
    block = blocks().get(provider)
    if block is None or name in block.models:
        return name
    return block.aliases.get(name, name)


def find(name: str, extra: Iterable[str] = ()) -> str | None:
    """The one `provider/name` a bare `name` means: an exact name, an alias, then a unique
    partial match, over the catalog and `extra` (`provider/name` of models declared elsewhere);
    `None` when nothing matches; `Ambiguous` when several do; `Retired` for a retired model."""
    extra = list(extra)
    if name not in {spec.partition("/")[2] for spec in extra}:  # the user's own name is theirs
        for provider, block in blocks().items():
            if name in block.retired:
                raise Retired(f"{provider}/{name}", block.retired[name])
    snapshots = [f"{p}/{s}" for p, b in blocks().items() for s in b.snapshots]
    every = sorted({*known_models(), *snapshots, *extra})
    exact = [s for s in every if s.partition("/")[2] == name]
    if not exact:
        exact = [f"{p}/{b.aliases[name]}" for p, b in blocks().items() if name in b.aliases]
    if not exact:  # a partial match starts a word of the name: `mini` is not in `gemini`
        starts = re.compile(r"(?:^|[-._])" + re.escape(name.lower()))
        exact = [s for s in every if starts.search(s.partition("/")[2].lower())]
    makers = [s for s in exact if not getattr(blocks().get(s.partition("/")[0]), "hosts", False)]
    exact = makers or exact
    if len({_model_of(spec) for spec in exact}) > 1:
        raise Ambiguous(name, exact)
    return _model_of(exact[0]) if len(exact) > 1 else exact[0] if exact else None


def _model_of(spec: str) -> str:
    """The model a `provider/name` is: a snapshot's model (two names of one model are no
    ambiguity)."""
    provider, _, name = spec.partition("/")
    block = blocks().get(provider)
    return f"{provider}/{block.snapshots.get(name, name)}" if block else spec


def _pricing(entry: dict[str, Any]) -> Pricing | None:
    if "input" not in entry or "output" not in entry:
        return None
    return Pricing(
        entry["input"],
        entry["output"],
        entry.get("cache_read"),
        entry.get("cache_write"),
        entry.get("cache_write_1h"),
    )


def model_from_entry(provider: str, name: str, api: str, entry: dict[str, Any]) -> Model:
    """A `Model` from a catalog-shaped dict (also used for models declared in settings)."""
    pricing = _pricing(entry)
    tier = entry.get("long_context")
    long = _pricing(tier) if isinstance(tier, dict) else None
    if pricing is not None and long is not None and isinstance(tier, dict):
        pricing = msgspec.structs.replace(pricing, above=int(tier.get("above", 0)), long=long)
    return Model(
        provider=provider,
        name=name,
        api=api,
        context_window=int(entry.get("context_window", 128_000)),
        max_output=int(entry.get("max_output", 16_384)),
        pricing=pricing,
        reasoning=bool(entry.get("reasoning", False)),
        thinking=entry.get("thinking"),
    )


def lookup(provider: str, name: str, api: str) -> Model:
    """The catalog's model (an alias resolved, a snapshot priced like its model), or an unpriced
    one with default limits when it is not listed; `Retired` for a retired model."""
    name = canonical(provider, name)
    block = blocks().get(provider)
    if block is None:
        return model_from_entry(provider, name, api, {})
    if name in block.retired:
        raise Retired(f"{provider}/{name}", block.retired[name])
    entry = block.models.get(block.snapshots.get(name, name), {})
    return model_from_entry(provider, name, api, entry)
