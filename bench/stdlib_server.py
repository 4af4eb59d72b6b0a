"""The baseline for bench/load.py: the local server as it was before uvicorn, the standard
library's ThreadingHTTPServer (backlog 5, a thread per connection, no read timeout), feeding
the same resolver. Kept here only to be measured against; nothing serves with it."""

from __future__ import annotations

import base64
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem.entrypoints.server import ResolverPool, to_proxy_event


def stdlib_server(factory: Callable[[], APIGatewayRestResolver], port: int, cap: int) -> ThreadingHTTPServer:
    pool = ResolverPool(factory, 16)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _dispatch(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > cap:
                self.send_response(413)
                self.send_header("Content-Length", "0")
                self.end_headers()
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            result = pool.resolve(
                to_proxy_event(self.command, self.path, headers, body, self.client_address[0])
            )
            payload = result.get("body") or ""
            data = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode()
            self.send_response(result["statusCode"])
            for name, value in (result.get("headers") or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _dispatch

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server
