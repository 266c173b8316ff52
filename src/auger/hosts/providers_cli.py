"""`auger models [--provider P]`, `auger login PROVIDER` and `auger logout PROVIDER`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from auger.config import (
    BUILTIN,
    ConfigError,
    auger_home,
    display,
    key_variable,
    keyed_providers,
    load_settings,
    remove_credential,
    save_credential,
    signed_in,
)

if TYPE_CHECKING:  # the catalog is imported by the command that lists it
    from auger.llm import Pricing

MODELS_USAGE = "usage: auger models [--provider PROVIDER]"
LOGIN_USAGE = "usage: auger login PROVIDER [--device]   (a sign-in, or an API key read from stdin)"
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
    from auger.llm import blocks, lookup

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
    if (
        provider is not None
        and provider not in catalog
        and provider not in declared
        and provider not in _signins()
    ):
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
    if provider is None or provider in catalog:
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
        out.write(f"  sign-in: {_sign_in(name)}\n")
    _signin_states(provider, out)
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


def _sign_in(provider: str) -> str:
    """Whether `provider` can be used now: its key, its saved key, or its cloud credentials."""
    from auger.config import BUILTIN, load_credentials

    home = Path(os.environ.get("HOME") or Path.home())
    row = BUILTIN.get(provider, {})
    if row.get("sign_in"):  # a cloud: its own credential chain, in its format's module
        from importlib import import_module

        state = import_module(f"auger.llm.{row['api']}").sign_in_state
        return str(state(os.environ, home))
    if row.get("signin"):
        from auger.config import load_signin

        if load_signin(auger_home(os.environ), row["signin"]) is not None:
            return "signed in"
        return f"not signed in — run `auger login {row['signin']}`"
    variable = row.get("api_key_env")
    if not variable:
        return "no key needed"
    if os.environ.get(variable):
        return f"{variable} set"
    if variable in load_credentials(auger_home(os.environ)):
        return f"{variable} saved by `auger login {provider}`"
    return f"not signed in — set {variable} or run `auger login {provider}`"


def _signin_states(provider: str | None, out: TextIO) -> None:
    """Each sign-in's state, and the models its account offers (as fetched at sign-in)."""
    from auger.config import load_signin

    home = auger_home(os.environ)
    for name in _signins():
        if provider not in (None, name):
            continue
        entry = load_signin(home, name)
        if entry is None:
            out.write(f"{name}: not signed in — auger login {name}\n")
            continue
        kept = entry.get("models")
        models: dict[str, Any] = kept if isinstance(kept, dict) else {}
        out.write(f"{name}: signed in; {len(models)} models on this account (no per-token price)\n")
        for model_name, limits in sorted(models.items()):
            window = limits.get("context_window") if isinstance(limits, dict) else None
            out.write(f"  {name}/{model_name:<28} {window or '-':>9}\n")


def _declared() -> dict[str, dict[str, dict[str, Any]]]:
    """The models each provider declared in settings has (`providers.P.models`)."""
    try:
        settings = load_settings(auger_home(os.environ), Path.cwd())
    except (ConfigError, OSError):
        return {}
    providers = settings.get("providers")
    out: dict[str, dict[str, dict[str, Any]]] = {}
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


def _signins() -> list[str]:
    return sorted(name for name, row in BUILTIN.items() if row.get("signin"))


def _choices(home: Path, out: TextIO) -> None:
    kept = set(signed_in(home))
    out.write("Sign in with a subscription (auger login NAME; --device without a browser):\n")
    for name in _signins():
        state = "signed in" if name in kept else "not signed in"
        out.write(f"  {name:<12} {state}\n")
    out.write("Or keep an API key (auger login NAME, the key on stdin):\n")
    out.write("  " + ", ".join(keyed_providers()) + "\n")
    out.write(
        "Claude Free/Pro/Max sign-in is not offered: Anthropic's terms allow it only in "
        "Anthropic's own apps (use an API key, Bedrock or Vertex).\n"
    )


def login_main(args: list[str], stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Sign in to a provider, or store its key in auth.json (0600): from stdin, or asked for
    without echo. Without a provider: the choices."""
    if _help(
        args, LOGIN_USAGE, "Sign in, or keep a provider's API key in ~/.auger/auth.json.", out
    ):
        return 0
    if not args:
        _choices(auger_home(os.environ), out)
        return 0
    device = "--device" in args
    rest = [a for a in args if a != "--device"]
    if len(rest) == 1 and rest[0] in _signins():
        from auger.hosts.signin_cli import login

        return login(rest[0], auger_home(os.environ), device=device, out=out)
    if device:
        sys.stderr.write(f"auger: --device is for a sign-in ({', '.join(_signins())})\n")
        return 2
    found = _key_of(rest, LOGIN_USAGE)
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
    """Forget a provider's sign-in or key in auth.json."""
    if _help(args, LOGOUT_USAGE, "Forget a sign-in or API key kept in ~/.auger/auth.json.", out):
        return 0
    if len(args) == 1 and args[0] in _signins():
        import asyncio

        from auger.config import sign_out

        said = asyncio.run(sign_out(args[0], auger_home(os.environ), os.environ))
        out.write(f"signed out of {args[0]}: {said}\n" if said else f"not signed in to {args[0]}\n")
        return 0
    found = _key_of(args, LOGOUT_USAGE)
    if found is None:
        return 2
    home, env_var = found
    removed = remove_credential(home, env_var)
    out.write(f"removed {env_var}\n" if removed else f"no {env_var} was saved\n")
    return 0
