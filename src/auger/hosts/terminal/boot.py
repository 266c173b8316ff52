"""Building the terminal's Runtime; on a first run, asking for a model and a missing API key."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from auger.config import (
    ConfigError,
    auger_home,
    choose_model,
    display,
    load_settings,
    provider_config,
    save_credential,
    save_setting,
    split_spec,
    with_credentials,
)
from auger.host import Host
from auger.runtime import Runtime

CLEAR_SCROLLBACK = "\x1b[3J"
"""Erase the scrollback (xterm's ED 3), once the screen is cleared for `/clear`."""
SHORTEST_KEY = 20
"""Shorter than this is no provider's API key (a guard against pasting the wrong thing)."""
FIRST_RUN_QUESTIONS = 3
"""How many times a first run may ask before giving up on what it was told."""


def reachable(provider: str, keys: Mapping[str, str], settings: Mapping[str, Any]) -> bool:
    """Whether `provider` is known and has the key it needs (or needs none). A provider that
    needs a sign-in or a cloud's credentials instead of a key does not count: it is chosen by
    name, after `auger login`."""
    from auger.config import BUILTIN

    try:
        config = provider_config(provider, keys, settings)
    except ConfigError:
        return False
    if config.signin or BUILTIN.get(provider, {}).get("sign_in"):
        return False
    return config.key_env is None or bool(config.api_key)


def model_choices(
    settings: Mapping[str, Any],
    current: str | None = None,
    keys: Mapping[str, str] | None = None,
) -> list[str]:
    """Models to offer: the current one, those declared in settings, then the catalog's; with
    `keys` (the environment and auth.json), only those whose provider has a key."""
    from auger.llm import known_models

    declared = []
    providers = settings.get("providers")
    if isinstance(providers, dict):
        for provider, config in providers.items():
            models = config.get("models") if isinstance(config, dict) else None
            if isinstance(models, dict):
                declared += [f"{provider}/{name}" for name in models]
    seen: dict[str, None] = dict.fromkeys([*([current] if current else []), *declared])
    seen.update(dict.fromkeys(known_models()))
    if keys is None:
        return list(seen)
    providers = {split_spec(spec)[0] for spec in seen}
    ok = {p for p in providers if reachable(p, keys, settings)}
    return [spec for spec in seen if spec == current or split_spec(spec)[0] in ok]


async def _fix(
    opts: Any,
    host: Host,
    env: dict[str, str],
    home: Path,
    cwd: Path,
    warnings: list[str] | None = None,
) -> bool:
    """Ask for what a first run lacks (a model, then a key); whether anything changed. What
    the session should warn about once it starts goes to `warnings`."""
    settings = load_settings(home, cwd)
    try:
        spec = choose_model(opts.model, env, settings)
    except ConfigError:
        choice = await host.ask("No model is chosen yet. Which one?", model_choices(settings))
        if not choice:
            return False
        save_setting(home, "model", choice)
        return True
    try:
        config = provider_config(split_spec(spec)[0], env, settings)
    except ConfigError:
        return False
    if config.key_env is None or config.api_key:
        return False
    key = await host.ask(
        f"{config.key_env} is not set. Paste the key (saved to {display(home / 'auth.json')}), "
        "or Esc to pick another model:",
        secret=True,
    )
    if key is None:  # declined: any model that can be reached without it
        others = [m for m in model_choices(settings, keys=env) if m != spec]
        choice = await host.ask("Which model instead?", others) if others else None
        if not choice:
            return False
        if getattr(opts, "model", None):
            opts.model = choice  # over `--model` for this run, too
        save_setting(home, "model", choice)
        return True
    if not key.strip():
        return False
    save_credential(home, config.key_env, key.strip())
    why = key_problem(key.strip())
    if why is not None and warnings is not None:
        warnings.append(
            f"{config.key_env} was saved, but it does not look like an API key ({why}); "
            "/login replaces it"
        )
    return True


def key_problem(key: str) -> str | None:
    """Why `key` does not look like an API key, if it does not (a model name pasted by
    mistake, say); it is saved all the same — a warning, not a refusal."""
    if any(c.isspace() for c in key):
        return "it has spaces in it"
    if len(key) < SHORTEST_KEY:
        return f"it is only {len(key)} characters long"
    return None


def banner(cwd: Path) -> str:
    """The terminal's first line: the version, the folder, where help is."""
    from auger._version import __version__

    return f"auger {__version__} · {display(cwd)} · /help lists the commands"


async def build_runtime(opts: Any, host: Host) -> Runtime:
    """The Runtime `auger` runs interactively (`idle` before `turn_end`, SPEC §2.2); on a first
    run it asks for a model and a missing key; raises `ConfigError` when it cannot be built."""
    from auger.hosts.launch import options
    from auger.loader import build

    env = dict(os.environ)
    home, cwd = auger_home(env), Path(os.getcwd())
    asked = 0
    warnings: list[str] = []
    while True:
        try:
            runtime = await build(options(opts, cwd), host, idle_before_turn_end=True)
        except ConfigError:
            asked += 1
            keys = with_credentials(env, home)
            if asked > FIRST_RUN_QUESTIONS or not await _fix(opts, host, keys, home, cwd, warnings):
                raise
        else:
            for warning in warnings:
                runtime.notify(warning, "warning")
            return runtime
