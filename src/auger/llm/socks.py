"""The SOCKS handshakes that turn a connection to a SOCKS proxy into a tunnel to one host.

SOCKS5 (RFC 1928, https://www.rfc-editor.org/rfc/rfc1928) with username/password
authentication (RFC 1929, https://www.rfc-editor.org/rfc/rfc1929); SOCKS4 and 4a
(https://www.openssh.com/txt/socks4.protocol, https://www.openssh.com/txt/socks4a.protocol).
As curl does, `socks5`/`socks4` resolve the name here and `socks5h`/`socks4a` let the proxy
resolve it. Each is a few fixed-size messages, so a library (python-socks) would add a
dependency for less code than it replaces.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import struct

from auger.llm.proxy import Proxy, ProxyDenied
from auger.llm.socket_reader import Wire

_SOCKS5_REPLIES = {
    1: "general SOCKS server failure",
    2: "connection not allowed by ruleset",
    3: "network unreachable",
    4: "host unreachable",
    5: "connection refused",
    6: "TTL expired",
    7: "command not supported",
    8: "address type not supported",
}
_SOCKS4_REPLIES = {
    91: "request rejected or failed",
    92: "request rejected: the proxy cannot reach our identd",
    93: "request rejected: identd reports a different user",
}


class _Reader:
    """Exact-size reads from a `Wire`, keeping what arrived beyond them."""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.rest = b""

    async def exactly(self, size: int) -> bytes:
        while len(self.rest) < size:
            data = await self.wire.read()
            if not data:
                raise ConnectionError("the SOCKS proxy closed the connection mid-handshake")
            self.rest += data
        taken, self.rest = self.rest[:size], self.rest[size:]
        return taken


async def socks_tunnel(wire: Wire, proxy: Proxy, host: str, port: int) -> None:
    """Ask the SOCKS `proxy` on `wire` for a tunnel to `host:port`; `ProxyDenied` when it
    refuses us, another `OSError` when it cannot or does not speak SOCKS."""
    reader = _Reader(wire)
    if proxy.scheme in ("socks5", "socks5h"):
        await _socks5(wire, reader, proxy, host, port)
    else:
        await _socks4(wire, reader, proxy, host, port)
    if reader.rest:
        raise ConnectionError("the SOCKS proxy sent data before the tunnel opened")


async def _socks5(wire: Wire, reader: _Reader, proxy: Proxy, host: str, port: int) -> None:
    credentials = bool(proxy.username or proxy.password)
    await wire.write(b"\x05\x02\x00\x02" if credentials else b"\x05\x01\x00")
    version, method = await reader.exactly(2)
    if version != 5:
        raise ConnectionError("the proxy does not speak SOCKS5")
    if method == 0xFF:
        wanted = "other credentials" if credentials else "a username and password"
        raise ProxyDenied(f"the SOCKS5 proxy wants {wanted}")
    if method == 2 and credentials:
        user, password = proxy.username.encode(), proxy.password.encode()
        if len(user) > 255 or len(password) > 255:
            raise ProxyDenied("a SOCKS5 username or password is at most 255 bytes")
        await wire.write(bytes([1, len(user)]) + user + bytes([len(password)]) + password)
        _, status = await reader.exactly(2)
        if status != 0:
            raise ProxyDenied("the SOCKS5 proxy refused the username and password")
    elif method != 0:
        raise ConnectionError(f"the SOCKS5 proxy chose a method we did not offer ({method})")
    await wire.write(b"\x05\x01\x00" + await _socks5_address(proxy, host, port))
    version, reply, _, kind = await reader.exactly(4)
    if version != 5:
        raise ConnectionError("the proxy broke SOCKS5")
    if reply != 0:
        reason = _SOCKS5_REPLIES.get(reply, f"reply {reply}")
        error = ProxyDenied if reply == 2 else ConnectionError
        raise error(f"the SOCKS5 proxy could not reach {host}:{port}: {reason}")
    if kind not in (1, 3, 4):
        raise ConnectionError(f"the SOCKS5 proxy answered an unknown address type ({kind})")
    size = {1: 4, 4: 16}.get(kind) or (await reader.exactly(1))[0]
    await reader.exactly(size + 2)  # the address the proxy bound: of no use to a client


async def _socks5_address(proxy: Proxy, host: str, port: int) -> bytes:
    if proxy.scheme == "socks5h" and not _is_ip(host):
        name = host.encode("idna")
        if len(name) > 255:
            raise ConnectionError(f"{host} is too long a name for SOCKS5")
        return bytes([3, len(name)]) + name + struct.pack("!H", port)
    address = ipaddress.ip_address(host if _is_ip(host) else await _resolve(host, port))
    return bytes([1 if address.version == 4 else 4]) + address.packed + struct.pack("!H", port)


async def _socks4(wire: Wire, reader: _Reader, proxy: Proxy, host: str, port: int) -> None:
    user = proxy.username.encode() + b"\x00"
    if proxy.scheme == "socks4a" and not _is_ip(host):
        request = struct.pack("!BBH", 4, 1, port) + b"\x00\x00\x00\x01" + user
        request += host.encode("idna") + b"\x00"
    else:
        address = ipaddress.ip_address(host if _is_ip(host) else await _resolve(host, port, 4))
        if address.version != 4:
            raise ConnectionError(f"SOCKS4 reaches IPv4 addresses only, not {host}")
        request = struct.pack("!BBH", 4, 1, port) + address.packed + user
    await wire.write(request)
    _, reply = await reader.exactly(2)
    await reader.exactly(6)
    if reply != 90:
        reason = _SOCKS4_REPLIES.get(reply, f"reply {reply}")
        error = ConnectionError if reply == 91 else ProxyDenied
        raise error(f"the SOCKS4 proxy could not reach {host}:{port}: {reason}")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


async def _resolve(host: str, port: int, version: int = 0) -> str:
    family = socket.AF_INET if version == 4 else socket.AF_UNSPEC
    loop = asyncio.get_running_loop()
    found = await loop.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM)
    return str(found[0][4][0])
