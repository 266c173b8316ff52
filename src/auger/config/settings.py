"""Settings: `$AUGER_HOME/settings.json`, with the project's `.auger/settings.json` over it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auger.config.errors import ConfigError
from auger.config.paths import display


def read_json_file(path: Path) -> dict[str, Any]:
    """A JSON object from `path` ({} when absent); a malformed file is a `ConfigError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {display(path)}: {exc.strerror}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{display(path)} line {exc.lineno} column {exc.colno}: {exc.msg} — fix the JSON"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{display(path)} must hold a JSON object, not {type(data).__name__}")
    return data


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` merged into `base`, objects merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def load_settings(home: Path, cwd: Path) -> dict[str, Any]:
    """The user's settings with the project's merged over them."""
    return merge(
        read_json_file(home / "settings.json"), read_json_file(cwd / ".auger" / "settings.json")
    )


def save_setting(home: Path, key: str, value: Any) -> None:
    """Set `key` in the user's settings file, written atomically."""
    import os
    import tempfile

    path = home / "settings.json"
    data = read_json_file(path)
    data[key] = value
    home.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".settings-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
