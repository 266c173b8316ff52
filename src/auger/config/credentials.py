"""Credentials kept in `$AUGER_HOME/auth.json` (mode 0600), of two kinds: API keys by variable
name (`{"ANTHROPIC_API_KEY": "sk-…"}`) and sign-ins by provider under `"signin"`
(`{"signin": {"chatgpt": {"access": …, "refresh": …, "expires": …}}}`).

The file is a key source after the environment: a variable that is set wins over the file.
A file that others may read is not used, and the warning says how to fix it.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from auger.config.paths import display

AUTH_FILE = "auth.json"
SIGNIN = "signin"

Warn = Callable[[str], None]


def _ignore(message: str) -> None:
    """Drop a warning."""


def _raw(path: Path, warn: Warn) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warn(f"cannot read {display(path)}: {exc.strerror}")
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        warn(f"{display(path)} line {exc.lineno}: {exc.msg} — its keys are not used")
        return {}
    if not isinstance(data, dict):
        warn(f"{display(path)} must hold a JSON object — its keys are not used")
        return {}
    return data


def _read(path: Path, warn: Warn) -> dict[str, str]:
    data = _raw(path, warn)
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and v}


def _private(home: Path, warn: Warn) -> Path | None:
    """`home/auth.json` when it exists and only its owner may read it (else `warn` says why)."""
    path = home / AUTH_FILE
    if os.name == "posix":
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            warn(f"cannot read {display(path)}: {exc.strerror}")
            return None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            warn(
                f"{display(path)} is readable by others (mode {stat.S_IMODE(mode):o}), so its "
                f"keys are not used — run: chmod 600 {display(path)}"
            )
            return None
    return path


def load_credentials(home: Path, warn: Warn = _ignore) -> dict[str, str]:
    """The keys in `home/auth.json` by variable name; `{}` when it is absent, unreadable, or
    readable by anyone but its owner (then `warn` is told why)."""
    path = _private(home, warn)
    return {} if path is None else _read(path, warn)


def load_signin(home: Path, provider: str, warn: Warn = _ignore) -> dict[str, Any] | None:
    """`provider`'s sign-in kept in `home/auth.json` (under the same rules as its keys)."""
    path = _private(home, warn)
    entries = _raw(path, warn).get(SIGNIN) if path is not None else None
    entry = entries.get(provider) if isinstance(entries, dict) else None
    return entry if isinstance(entry, dict) else None


def signed_in(home: Path) -> list[str]:
    """The providers with a sign-in kept in `home/auth.json`."""
    path = _private(home, _ignore)
    entries = _raw(path, _ignore).get(SIGNIN) if path is not None else None
    return sorted(k for k, v in entries.items() if isinstance(v, dict)) if entries else []


def save_signin(home: Path, provider: str, entry: dict[str, Any]) -> Path:
    """Keep `entry` as `provider`'s sign-in in `home/auth.json` (atomically, mode 0600)."""
    data = _raw(home / AUTH_FILE, _ignore)
    entries = data.get(SIGNIN)
    data[SIGNIN] = (entries if isinstance(entries, dict) else {}) | {provider: entry}
    return _write(home, data)


def remove_signin(home: Path, provider: str) -> bool:
    """Forget `provider`'s sign-in; whether there was one."""
    data = _raw(home / AUTH_FILE, _ignore)
    entries = data.get(SIGNIN)
    if not isinstance(entries, dict) or provider not in entries:
        return False
    del entries[provider]
    if not entries:
        del data[SIGNIN]
    _write(home, data)
    return True


def with_credentials(env: Mapping[str, str], home: Path, warn: Warn = _ignore) -> dict[str, str]:
    """`env` with the keys of `home/auth.json` added where `env` has none (or an empty one)."""
    merged = dict(env)
    for name, value in load_credentials(home, warn).items():
        if not merged.get(name):
            merged[name] = value
    return merged


def save_credential(home: Path, env_var: str, value: str) -> Path:
    """Store `value` as `env_var` in `home/auth.json`, written atomically with mode 0600."""
    data = _raw(home / AUTH_FILE, _ignore)
    data[env_var] = value
    return _write(home, data)


def remove_credential(home: Path, env_var: str) -> bool:
    """Forget `env_var` in `home/auth.json`; whether it was there."""
    data = _raw(home / AUTH_FILE, _ignore)
    if not isinstance(data.get(env_var), str):
        return False
    del data[env_var]
    _write(home, data)
    return True


def _write(home: Path, data: dict[str, Any]) -> Path:
    path = home / AUTH_FILE
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=home, prefix=".auth-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.chmod(tmp, 0o600)
            json.dump(data, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
