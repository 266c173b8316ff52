"""The `http` settings (timeouts) and the environment's proxies, as one HTTP transport."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from auger.config.errors import ConfigError

if TYPE_CHECKING:
    from auger.llm.transport import HttpTransport

_KEYS = {
    "connect_timeout": "connect",
    "idle_timeout": "idle",
    "first_event_timeout": "first_event",
    "attempt_timeout": "attempt",
}


def transport_from(env: Mapping[str, str], settings: Mapping[str, Any]) -> HttpTransport:
    """A transport with settings' `http.*_timeout` seconds and the proxies named in `env`."""
    from auger.llm.proxy import Proxies
    from auger.llm.transport import HttpTransport, Timeouts

    if problem := Proxies.from_env(env).unsupported():
        raise ConfigError(problem)

    raw = settings.get("http") or {}
    if not isinstance(raw, dict):
        raise ConfigError('settings "http" must be an object, e.g. {"idle_timeout": 90}')
    values: dict[str, float] = {}
    for key, field in _KEYS.items():
        if key not in raw:
            continue
        value = raw[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
        ):
            raise ConfigError(f'settings "http.{key}" must be a positive number of seconds')
        values[field] = float(value)
    return HttpTransport(env=env, timeouts=Timeouts(**values))
