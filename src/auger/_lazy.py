"""A package's public names, imported at first use so importing the package costs nothing."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs milliseconds that `--version` cannot spare
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def exports(package: str, table: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The `__getattr__` of `package`: each name of `table[module]` from that module (a
    module path relative to `package`, or `""` for a submodule of the same name)."""
    where = {name: module for module, names in table.items() for name in names}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if module == "":
            value: Any = importlib.import_module(f"{package}.{name}")
        else:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__


def names(table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Every public name of `table`, sorted (a package's `__all__`)."""
    return sorted(name for group in table.values() for name in group)
