"""The model layer: messages, records, usage, catalog and the provider wire formats. What a
host uses of it, imported at first use."""

from __future__ import annotations

from auger._lazy import exports, names

_TABLE = {
    "arguments": ("arguments_or_empty",),
    "catalog": ("blocks", "known_models", "lookup"),
    "messages": ("UserPart",),
    "text": ("decode_input", "escape_deep", "escape_surrogates"),
    "usage": ("Pricing",),
}
__all__ = names(_TABLE)
__getattr__ = exports(__name__, _TABLE)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the names, typed, for mypy (`as`: re-exported)
    from auger.llm.arguments import arguments_or_empty as arguments_or_empty
    from auger.llm.catalog import blocks as blocks
    from auger.llm.catalog import known_models as known_models
    from auger.llm.catalog import lookup as lookup
    from auger.llm.messages import UserPart as UserPart
    from auger.llm.text import decode_input as decode_input
    from auger.llm.text import escape_deep as escape_deep
    from auger.llm.text import escape_surrogates as escape_surrogates
    from auger.llm.usage import Pricing as Pricing
