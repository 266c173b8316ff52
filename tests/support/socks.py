"""A SOCKS4/4a/5 proxy on 127.0.0.1 for transport tests (RFC 1928 and 1929; the SOCKS4 and 4a
notes at https://www.openssh.com/txt/socks4.protocol and socks4a.protocol), recording what it
was asked, with optional username/password and a chosen failure."""

from __future__ import annotations

import asyncio
import ipaddress
import struct

import msgspec

from support.sockets import splice


class Asked(msgspec.Struct, frozen=True):
    """One CONNECT request: the SOCKS version, how the address came (`ipv4`, `ipv6`, `name`),
    the host and port, and the user named (SOCKS5: after authenticating; SOCKS4: its user id)."""

    version: int
    address: str
    host: str
    port: int
    user: str = ""


class SocksProxy:
    """Run `handle` per connection (in `support.sockets.Server`): `credentials` makes SOCKS5
    demand that user and password; `reply` answers every CONNECT with that SOCKS5 code (or, for
    SOCKS4, 91) instead of tunnelling."""

    def __init__(self, credentials: tuple[str, str] | None = None, reply: int = 0) -> None:
        self.credentials = credentials
        self.reply = reply
        self.asked: list[Asked] = []
        self.refused_logins: list[tuple[str, str]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        version = (await reader.readexactly(1))[0]
        if version == 5:
            asked = await self._socks5(reader, writer)
        elif version == 4:
            asked = await self._socks4(reader, writer)
        else:
            return
        if asked is None:
            return
        self.asked.append(asked)
        up_reader, up_writer = await asyncio.open_connection(asked.host, asked.port)
        writer.write(
            b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00" if version == 5 else b"\x00\x5a" + bytes(6)
        )
        await splice(reader, writer, up_reader, up_writer)

    async def _socks5(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Asked | None:
        methods = await reader.readexactly((await reader.readexactly(1))[0])
        user = ""
        if self.credentials is None:
            writer.write(b"\x05\x00" if 0 in methods else b"\x05\xff")
        elif 2 not in methods:
            writer.write(b"\x05\xff")
            return None
        else:
            writer.write(b"\x05\x02")
            await reader.readexactly(1)
            user = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
            password = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
            if (user, password) != self.credentials:
                self.refused_logins.append((user, password))
                writer.write(b"\x01\x01")
                return None
            writer.write(b"\x01\x00")
        _, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            address, host = "ipv4", str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 4:
            address, host = "ipv6", str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            address = "name"
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        if self.reply or command != 1:
            writer.write(bytes([5, self.reply or 7, 0, 1]) + bytes(6))
            return None
        return Asked(5, address, host, port, user)

    async def _socks4(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Asked | None:
        _, port, raw = struct.unpack("!BH4s", await reader.readexactly(7))
        user = (await reader.readuntil(b"\x00"))[:-1].decode()
        if raw[:3] == b"\x00\x00\x00" and raw[3]:
            address, host = "name", (await reader.readuntil(b"\x00"))[:-1].decode()
        else:
            address, host = "ipv4", str(ipaddress.IPv4Address(raw))
        if self.reply:
            writer.write(b"\x00\x5b" + bytes(6))
            return None
        return Asked(4, address, host, port, user)
