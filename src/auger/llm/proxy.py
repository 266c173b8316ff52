"""Which proxy a request goes through: `HTTP(S)_PROXY`, `ALL_PROXY` and `NO_PROXY`, read the
way curl reads them, from an injected environment."""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from urllib.parse import SplitResult, unquote, urlsplit

import msgspec


class Proxies(msgspec.Struct, frozen=True):
    """`HTTP(S)_PROXY`, `ALL_PROXY` and `NO_PROXY` as curl reads them (lower case first)."""

    http: str | None = None
    https: str | None = None
    no_proxy: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Proxies:
        """The proxy settings in `env`."""

        def get(name: str) -> str | None:
            return env.get(name.lower()) or env.get(name.upper()) or None

        fallback = get("all_proxy")
        skip = tuple(p.strip().lower() for p in (get("no_proxy") or "").split(",") if p.strip())
        return cls(get("http_proxy") or fallback, get("https_proxy") or fallback, skip)

    def unsupported(self) -> str | None:
        """Why a configured proxy cannot be used (only http:// proxies can), or `None`."""
        for name, proxy in (("HTTP_PROXY", self.http), ("HTTPS_PROXY", self.https)):
            if proxy and "://" in proxy and not proxy.lower().startswith("http://"):
                return f"{name} (or ALL_PROXY) is {proxy}: only http:// proxies are supported"
        return None

    def for_url(self, scheme: str, host: str, port: int) -> SplitResult | None:
        """The proxy to reach `host` through, or `None` to go direct."""
        proxy = self.https if scheme == "https" else self.http
        if not proxy or self._bypass(host.lower(), port):
            return None
        return urlsplit(proxy if "://" in proxy else "http://" + proxy)

    def _bypass(self, host: str, port: int) -> bool:
        for entry in self.no_proxy:
            if entry == "*":
                return True
            name, _, entry_port = (
                entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
            )
            if entry_port and entry_port != str(port):
                continue
            name = name.strip("[]").lstrip(".")
            if host == name or host.endswith("." + name) or _in_network(host, name):
                return True
        return False


def _in_network(host: str, entry: str) -> bool:
    if "/" not in entry:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False


def basic_auth(proxy: SplitResult) -> str:
    """The `Proxy-Authorization` value for the user and password in `proxy`'s URL."""
    user = f"{unquote(proxy.username or '')}:{unquote(proxy.password or '')}"
    return "Basic " + base64.b64encode(user.encode()).decode()
