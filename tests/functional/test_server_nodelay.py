"""The local server's connections send without Nagle's delay: asyncio sets TCP_NODELAY only on
sockets whose proto is IPPROTO_TCP, and the server's listening socket (from
`socket.create_server`) has proto 0, so each response's body waited for the client's delayed
ACK of its headers: 40 ms on every request. Accepted connections inherit the option on Linux."""

from __future__ import annotations

import socket

from agentmem.api.app import build_resolver
from agentmem.entrypoints.server import LocalServer
from agentmem.wiring import Services


def test_the_listening_socket_has_tcp_nodelay(services: Services) -> None:
    server = LocalServer(lambda: build_resolver(services), port=0)
    try:
        assert server._socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        server._socket.close()
