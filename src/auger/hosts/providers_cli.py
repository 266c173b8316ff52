"""`auger models [--provider P]`, `auger login PROVIDER` and `auger logout PROVIDER`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from auger.config.credentials import remove_credential, save_credential
from auger.config.errors import ConfigError
from auger.config.paths import auger_home, display
from auger.config.providers import key_variable
from auger.config.settings import load_settings

if TYPE_CHECKING:  # the catalog is imported by the command that lists it
    from auger.llm.usage import Pricing

MODELS_USAGE = "usage: auger models [--provider PROVIDER]"
LOGIN_USAGE = "usage: auger login PROVIDER   (the key is read from stdin, or asked for)"
LOGOUT_USAGE = "usage: auger logout PROVIDER"


def _help(args: list[str], usage: str, text: str, out: TextIO) -> bool:
    """Answer `--help`: whether `args` asked for it."""
    if args[:1] not in (["-h"], ["--help"]):
        return False
    out.write(f"{usage}\n\n{text}\n")
    return True


def _price(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _prices(p: Pricing) -> str:
    return "/".join(_price(v) for v in (p.input, p.output, p.cache_read, p.cache_write))


def models_main(args: list[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """List the catalog's models: limits, prices per million tokens, thinking style."""
    from auger.llm.catalog import blocks, lookup

    if _help(args, MODELS_USAGE, "List the catalog's models: limits, prices, thinking.", out):
        return 0
    provider: str | None = None
    if args[:1] == ["--provider"] and len(args) == 2:
        provider = args[1]
    elif args:
        err.write(f"auger: unexpected {args[0]!r}\n{MODELS_USAGE}\n")
        return 2
    catalog = blocks()
    declared = _declared()
    if provider is not None and provider not in catalog and provider not in declared:
        import difflib

        every = sorted({*catalog, *declared})
        close = difflib.get_close_matches(provider, every, n=1, cutoff=0.6)
        hint = f" — did you mean {close[0]}?" if close else ""
        known = ", ".join(sorted(catalog))
        own = f"; settings declare {', '.join(sorted(declared))}" if declared else ""
        err.write(
            f"auger: no models listed for {provider!r}{hint} — the catalog has {known}{own}\n"
        )
        return 2
    out.write(
        f"{'model':<32} {'context':>9} {'output':>7}  in/out/cache read/write $/M  thinking\n"
    )
    for name, block in sorted(catalog.items()):
        if provider not in (None, name):
            continue
        for model_name in sorted(block.models):
            m = lookup(name, model_name, "")
            p = m.pricing
            prices = "unpriced" if p is None else _prices(p)
            thinking = m.thinking or ("yes" if m.reasoning else "-")
            out.write(
                f"{m.id:<32} {m.context_window:>9,} {m.max_output:>7,}  {prices:<28} {thinking}\n"
            )
            if p is not None and p.long is not None and p.above is not None:
                out.write(f"{'':<32} {'> ' + format(p.above, ','):>17}  {_prices(p.long)}\n")
        aliases = ", ".join(f"{a} → {t}" for a, t in sorted(block.aliases.items()))
        note = f"  aliases: {aliases}\n" if aliases else ""
        gone = ", ".join(f"{n} ({r.on}, use {r.use})" for n, r in sorted(block.retired.items()))
        note += f"  retired: {gone}\n" if gone else ""
        out.write(f"{note}  checked {block.checked}: {', '.join(block.sources)}\n")
    for name, models in sorted(declared.items()):
        if provider not in (None, name) or not models:
            continue
        for model_name, entry in sorted(models.items()):
            window, most = (entry.get(k) for k in ("context_window", "max_output"))
            window = f"{window:,}" if isinstance(window, int) else "-"
            most = f"{most:,}" if isinstance(most, int) else "-"
            out.write(f"{name + '/' + model_name:<32} {window:>9} {most:>7}\n")
        out.write("  declared in settings\n")
    return 0


def _declared() -> dict[str, dict[str, dict]]:
    """The models each provider declared in settings has (`providers.P.models`)."""
    try:
        settings = load_settings(auger_home(os.environ), Path.cwd())
    except (ConfigError, OSError):
        return {}
    providers = settings.get("providers")
    out: dict[str, dict[str, dict]] = {}
    for name, config in providers.items() if isinstance(providers, dict) else ():
        models = config.get("models") if isinstance(config, dict) else None
        if isinstance(models, dict):
            out[name] = {m: e if isinstance(e, dict) else {} for m, e in models.items()}
    return out


def _key_of(args: list[str], usage: str) -> tuple[Path, str] | None:
    """The auger home and the key variable of the one provider named in `args`; `None` once
    what is wrong has been said."""
    if len(args) != 1:
        sys.stderr.write(usage + "\n")
        return None
    home = auger_home(os.environ)
    try:
        return home, key_variable(args[0], load_settings(home, Path.cwd()))
    except ConfigError as exc:
        sys.stderr.write(f"auger: {exc}\n")
        return None


def login_main(args: list[str], stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Store a provider's key in auth.json (0600): from stdin, or asked for without echo."""
    if _help(args, LOGIN_USAGE, "Keep a provider's API key in ~/.auger/auth.json (0600).", out):
        return 0
    found = _key_of(args, LOGIN_USAGE)
    if found is None:
        return 2
    home, env_var = found
    if stdin.isatty():
        import getpass

        key = getpass.getpass(f"{env_var}: ")
    else:
        key = stdin.readline()
    if not key.strip():
        sys.stderr.write("auger: no key given — nothing was saved\n")
        return 2
    path = save_credential(home, env_var, key.strip())
    out.write(f"saved {env_var} to {display(path)}\n")
    return 0


def logout_main(args: list[str], out: TextIO = sys.stdout) -> int:
    """Forget a provider's key in auth.json."""
    if _help(args, LOGOUT_USAGE, "Forget a provider's API key kept in ~/.auger/auth.json.", out):
        return 0
    found = _key_of(args, LOGOUT_USAGE)
    if found is None:
        return 2
    home, env_var = found
    removed = remove_credential(home, env_var)
    out.write(f"removed {env_var}\n" if removed else f"no {env_var} was saved\n")
    return 0
