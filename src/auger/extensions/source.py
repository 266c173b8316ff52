"""Where an extension comes from, and how it is (re)imported."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

Extension = Callable[[Any], Any]


class ExtensionError(Exception):
    """An extension could not be loaded."""


class Source(msgspec.Struct, frozen=True):
    """One extension: its `name` (what settings and notices call it), how to get its
    `extension(g)` callable, and the file behind it, if any (watched for hot reload)."""

    name: str
    load: Callable[[], Extension]
    path: Path | None = None
    kind: str = "bundled"

    def stamp(self) -> float | None:
        """The file's modification time, or `None` when there is no file."""
        if self.path is None:
            return None
        try:
            return self.path.stat().st_mtime
        except OSError:
            return None


def from_callable(fn: Extension, name: str | None = None) -> Source:
    """A source for an extension that is already a Python callable."""
    label = name or getattr(fn, "__module__", "").rsplit(".", 1)[-1] or fn.__name__
    return Source(label, lambda: _synchronous(fn, label), kind="callable")


def _synchronous(fn: Extension, name: str) -> Extension:
    """`fn`, unless it is `async def`: its registrations would never run, so that is an error."""
    if inspect.iscoroutinefunction(fn):
        raise ExtensionError(
            f"{name}: extension(g) is async def; it must be a plain function "
            "(the handlers it registers may be async)"
        )
    return fn


def from_file(path: Path, kind: str = "file") -> Source:
    """A source for a `.py` file whose module-level `extension(g)` is the extension."""
    path = path.resolve()
    return Source(path.stem, lambda: import_file(path), path, kind)


def import_file(path: Path) -> Extension:
    """Import `path` afresh (never from a cache) and return its `extension` callable."""
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    module_name = f"auger_extension_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ExtensionError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise ExtensionError(f"{path} does not exist") from None
    except SyntaxError as exc:
        raise ExtensionError(f"{path.name} line {exc.lineno}: {exc.msg}") from None
    finally:
        sys.modules.pop(module_name, None)
    fn = getattr(module, "extension", None)
    if not callable(fn):
        raise ExtensionError(f"{path.name} has no extension(g) function")
    return _synchronous(fn, path.name)
