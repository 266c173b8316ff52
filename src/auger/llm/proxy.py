"""Which proxy a request goes through: `HTTP(S)_PROXY`, `ALL_PROXY` and `NO_PROXY`, read the
way curl reads them, from an injected environment."""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from typing import Literal, cast, get_args
from urllib.parse import unquote, urlsplit

import msgspec

Scheme = Literal["http", "https", "socks5", "socks5h", "socks4", "socks4a"]
_SCHEMES: tuple[str, ...] = get_args(Scheme)
_PORTS = {"http": 80, "https": 443}  # curl's 1080 for every SOCKS kind


class ProxyDenied(OSError):
    """The proxy refused us: credentials wanted, wrong, or its rules forbid the target."""


class Proxy(msgspec.Struct, frozen=True):
    """One proxy: how to speak to it, where it is, and its (unquoted) credentials.

    Errors and logs name it by `shown`, which never holds the credentials."""

    scheme: Scheme
    host: str
    port: int
    username: str = ""
    password: str = ""

    @classmethod
    def parse(cls, url: str) -> Proxy:
        """The proxy `url` names (`host:port` alone is an http:// proxy); `ValueError` with a
        message free of credentials when it names none auger can use."""
        parts = urlsplit(url if "://" in url else "http://" + url)
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            speaks = ", ".join(s + "://" for s in _SCHEMES)
            raise ValueError(f"{_without_credentials(url)}: auger speaks {speaks}")
        try:
            port = parts.port or _PORTS.get(scheme, 1080)
        except ValueError:
            problem = "the port is not a number from 0 to 65535"
            raise ValueError(f"{_without_credentials(url)}: {problem}") from None
        if not parts.hostname:
            raise ValueError(f"{_without_credentials(url)}: no host")
        return cls(
            cast(Scheme, scheme),
            parts.hostname,
            port,
            unquote(parts.username or ""),
            unquote(parts.password or ""),
        )

    def __repr__(self) -> str:  # a traceback's locals or a log line must not show the password
        return f"Proxy({self.shown!r})"

    @property
    def shown(self) -> str:
        """The proxy's URL without its credentials."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def forwards(self) -> bool:
        """Whether it is an HTTP proxy, which takes plain-http requests itself (in absolute
        form) rather than only tunnels."""
        return self.scheme in ("http", "https")


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

    def __repr__(self) -> str:
        http, https = (
            _without_credentials(url) if url else None for url in (self.http, self.https)
        )
        return f"Proxies(http={http!r}, https={https!r}, no_proxy={self.no_proxy!r})"

    def unsupported(self) -> str | None:
        """Why a configured proxy cannot be used, or `None`."""
        for name, proxy in (("HTTP_PROXY", self.http), ("HTTPS_PROXY", self.https)):
            try:
                if proxy:
                    Proxy.parse(proxy)
            except ValueError as exc:
                return f"{name} (or ALL_PROXY) is {exc}"
        return None

    def for_url(self, scheme: str, host: str, port: int) -> Proxy | None:
        """The proxy to reach `host` through, or `None` to go direct (`ValueError` as `parse`)."""
        proxy = self.https if scheme == "https" else self.http
        if not proxy or self._bypass(host.lower(), port):
            return None
        return Proxy.parse(proxy)

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


def _without_credentials(url: str) -> str:
    parts = urlsplit(url if "://" in url else "http://" + url)
    return f"{parts.scheme.lower()}://{parts.netloc.rpartition('@')[2]}"


def _in_network(host: str, entry: str) -> bool:
    if "/" not in entry:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False


def basic_auth(proxy: Proxy) -> str:
    """The `Proxy-Authorization` value for the user and password in `proxy`'s URL."""
    user = f"{proxy.username}:{proxy.password}"
    return "Basic " + base64.b64encode(user.encode()).decode()
