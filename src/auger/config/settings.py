"""Settings: `$AUGER_HOME/settings.json`, the project's `.auger/settings.json` over it (only
its inert keys until the project is trusted, SPEC §7), then the user's local settings for this
project (`$AUGER_HOME/projects/<slug>/settings.local.json`, where "always allow" rules go).

The local file lives under auger's home, not in the project: a repository cannot ship it, and
it is never committed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import msgspec

from auger.config.errors import ConfigError
from auger.config.paths import display
from auger.config.project import project_root
from auger.config.schema import merge, untrusted_keys, validate
from auger.config.trust import TrustStore


class Loaded(msgspec.Struct, frozen=True):
    """Merged settings, the warnings reading them produced, and the project keys ignored
    because the project is not trusted."""

    settings: dict[str, Any]
    warnings: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()

    def notices(self, cwd: Path, also_ignored: Collection[str] = ()) -> list[str]:
        """The warnings to show: reading the files, then the one trust notice naming all that
        was ignored (these keys and `also_ignored`, e.g. project extension files)."""
        ignored = [*self.ignored, *also_ignored]
        return [*self.warnings, *([trust_notice(cwd, ignored)] if ignored else [])]


def read_json_file(path: Path) -> dict[str, Any]:
    """A JSON object from `path` ({} when absent); a malformed file is a `ConfigError`."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is accepted
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{display(path)} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {display(path)}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{display(path)} line {exc.lineno} column {exc.colno}: {exc.msg} — fix the JSON"
        ) from None
    except RecursionError:
        raise ConfigError(f"{display(path)} is nested too deeply to be settings") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{display(path)} must hold a JSON object, not {type(data).__name__}")
    return data


def local_settings_path(home: Path, cwd: Path) -> Path:
    """The user's own settings for the project at `cwd` (outside the project)."""
    from auger.session.paths import cwd_slug

    return home / "projects" / cwd_slug(project_root(cwd, home)) / "settings.local.json"


def _inert(kept: dict[str, Any], user: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`kept` (the project's settings, a copy) with only what an untrusted project may set,
    and the keys it may not."""
    from auger.config.providers import BUILTIN

    ignored: list[str] = []
    for path in list(untrusted_keys(kept)):
        ignored.append(json.dumps(".".join(path), ensure_ascii=False)[1:-1])  # one line
        parent = kept
        for name in path[:-1]:
            parent = parent[name]
        del parent[path[-1]]
    model = kept.get("model")
    providers = user.get("providers")
    known = {*BUILTIN, *(providers if isinstance(providers, dict) else ())}
    if isinstance(model, str) and model.partition("/")[0] not in known:
        del kept["model"]  # a model of a provider only the project would declare
        ignored.append("model")
    return kept, ignored


class Files(msgspec.Struct, frozen=True):
    """The three settings files as read (each `{}` when absent) and what validating them
    found: read once per start, merged for the trust the project has."""

    user: dict[str, Any]
    project: dict[str, Any]
    local: dict[str, Any]
    warnings: tuple[str, ...] = ()


def read(home: Path, cwd: Path) -> Files:
    """Read and validate the user's, the project's and the local settings files."""
    user_path = home / "settings.json"
    project_path = project_root(cwd, home) / ".auger" / "settings.json"
    local_path = local_settings_path(home, cwd)
    user, project, local = (read_json_file(p) for p in (user_path, project_path, local_path))
    warnings = [
        *validate(user, display(user_path)),
        *validate(project, display(project_path)),
        *validate(local, display(local_path)),
    ]
    return Files(user, project, local, tuple(warnings))


def combine(files: Files, *, trusted: bool, protected: Collection[str] = ()) -> Loaded:
    """The merged settings: user, project (only its inert keys unless `trusted`), local.

    `protected` names the user's own extensions: no project setting disables them.
    """
    project: dict[str, Any] = json.loads(json.dumps(files.project))
    ignored: list[str] = []
    if project and not trusted:
        project, ignored = _inert(project, files.user)
    disabled = (project.get("extensions") or {}).get("disabled")
    if isinstance(disabled, list) and protected:
        project["extensions"]["disabled"] = [n for n in disabled if n not in protected]
    merged = merge(merge(files.user, project), files.local)
    return Loaded(merged, files.warnings, tuple(ignored))


def load(home: Path, cwd: Path, *, protected: Collection[str] = ()) -> Loaded:
    """The settings files read and merged for the trust the project has now."""
    trusted = TrustStore(home).is_trusted(cwd)
    return combine(read(home, cwd), trusted=trusted, protected=protected)


def trust_notice(cwd: Path, ignored: Collection[str]) -> str:
    """The one notice naming what an untrusted project had that was not applied."""
    return (
        f"this project is not trusted, so these were ignored: {', '.join(ignored)} — "
        f"run `auger trust {display(project_root(cwd))}` to apply them"
    )


def load_settings(home: Path, cwd: Path) -> dict[str, Any]:
    """The merged settings (see `load`), without its warnings and notice."""
    return load(home, cwd).settings


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def save_setting(home: Path, key: str, value: Any) -> None:
    """Set `key` in the user's settings file, written atomically."""
    path = home / "settings.json"
    data = read_json_file(path)
    data[key] = value
    _write_json(path, data)


def add_local_rule(home: Path, cwd: Path, kind: str, rule: str) -> Path:
    """Add `rule` to `permissions.<kind>` of the user's local settings for `cwd`; the file."""
    path = local_settings_path(home, cwd)
    data = read_json_file(path)
    section = data.setdefault("permissions", {})
    rules = section.setdefault(kind, [])
    if rule not in rules:
        rules.append(rule)
    _write_json(path, data)
    return path
