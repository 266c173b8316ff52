"""The model catalog: context windows and prices, kept in `catalog.json` beside this file."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from auger.llm.provider import Model
from auger.llm.usage import Pricing


@cache
def _entries() -> dict[str, dict[str, Any]]:
    data = json.loads((Path(__file__).parent / "catalog.json").read_text())
    return {k: v for k, v in data.items() if not k.startswith("_")}  # `_comment`, `_sources`


def known_models() -> list[str]:
    """Every `provider/name` in the catalog."""
    return sorted(_entries())


def model_from_entry(provider: str, name: str, api: str, entry: dict[str, Any]) -> Model:
    """A `Model` from a catalog-shaped dict (also used for models declared in settings)."""
    pricing = None
    if "input" in entry and "output" in entry:
        pricing = Pricing(
            entry["input"], entry["output"], entry.get("cache_read"), entry.get("cache_write")
        )
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
    """The catalog's model, or an unpriced one with default limits when it is not listed."""
    entry = _entries().get(f"{provider}/{name}", {})
    return model_from_entry(provider, name, api, entry)
