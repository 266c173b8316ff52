"""One Runtime's extension sources: loaded into a registry over the prompt's own sections, and
watched for changed files (hot reload)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from auger.engine import prompt
from auger.engine.registry import Registry
from auger.extensions.registrar import Surroundings, load_extensions
from auger.extensions.source import Source


class Loaded:
    """Loads `sources` (minus `disabled`) with what `around` lends them."""

    def __init__(
        self, sources: Sequence[Source], disabled: frozenset[str], around: Surroundings
    ) -> None:
        self._sources = list(sources)
        self._disabled = disabled
        self._around = around
        self._stamps = self._file_stamps()

    def load(self, opening: Registry) -> tuple[Registry, list[str]]:
        """A fresh registry holding `opening`'s sections, then every extension's, then the
        prompt's closing sections; and the failures (an extension that failed is left out)."""
        self._stamps = self._file_stamps()
        registry, failures = load_extensions(self._sources, opening, self._around, self._disabled)
        prompt.close(registry, self._around.cwd)
        return registry, failures

    def changed(self) -> bool:
        """Whether an extension file changed since it was last loaded."""
        return bool(self._stamps) and self._file_stamps() != self._stamps

    def _file_stamps(self) -> dict[Path, float | None]:
        return {s.path: s.stamp() for s in self._sources if s.path is not None}


def unknown_tools(allow: frozenset[str] | None, registry: Registry) -> str | None:
    """What `--tools` names that no extension registered, as a message (MCP tools, `S__T`,
    appear once their server has started, so they are not counted)."""
    if allow is None:
        return None
    unknown = sorted(n for n in allow - set(registry.tools) if "__" not in n)
    if not unknown:
        return None
    known = ", ".join(sorted(registry.tools)) or "none"
    return f"--tools names unknown tools: {', '.join(unknown)} (the tools: {known})"
