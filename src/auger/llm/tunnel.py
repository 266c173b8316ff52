"""A raw tunnel through a proxy to one host: HTTP CONNECT (for http:// and https:// proxies,
RFC 9110 §9.3.6) or a SOCKS handshake (`socks`)."""

from __future__ import annotations

import h11

from auger.llm.proxy import Proxy, ProxyDenied, basic_auth
from auger.llm.socket_reader import Wire


async def open_tunnel(wire: Wire, proxy: Proxy, host: str, port: int, user_agent: str) -> None:
    """Turn `wire`, connected to `proxy`, into a tunnel to `host:port`; `ProxyDenied` when the
    proxy refuses us, another `OSError` when it fails."""
    if not proxy.forwards:
        from auger.llm.socks import socks_tunnel  # only a SOCKS user pays for it

        await socks_tunnel(wire, proxy, host, port)
        return
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = [("host", authority), ("user-agent", user_agent)]
    if proxy.username or proxy.password:
        headers.append(("proxy-authorization", basic_auth(proxy)))
    h = h11.Connection(our_role=h11.CLIENT)
    try:
        await wire.write(h.send(h11.Request(method="CONNECT", target=authority, headers=headers)))
        await wire.write(h.send(h11.EndOfMessage()))
        while (event := h.next_event()) is h11.NEED_DATA:
            h.receive_data(await wire.read())
    except h11.ProtocolError as exc:
        raise ConnectionError(f"the proxy broke HTTP: {exc}") from None
    if not isinstance(event, h11.Response):
        raise ConnectionError("the proxy closed the connection instead of answering CONNECT")
    if not 200 <= event.status_code < 300:
        answer = f"the proxy answered CONNECT with {event.status_code} {event.reason.decode()}"
        raise (ProxyDenied if event.status_code in (403, 407) else ConnectionError)(answer)
    leftover, _ = h.trailing_data
    if leftover:
        raise ConnectionError("the proxy sent data before the tunnel opened")
