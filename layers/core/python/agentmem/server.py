"""`agentmem serve`: a real HTTP server on loopback that feeds every request, as an API Gateway
proxy event, through the same resolver and validation code as the Lambda handlers."""

from __future__ import annotations

import base64
import json
import logging
import queue
import threading
import uuid
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

logger = logging.getLogger(__name__)

# Bodies past this are refused before they are read: the API's own 413 covers anything smaller.
HARD_BODY_CAP_FACTOR = 2


class LocalContext:
    """The few LambdaContext attributes Powertools reads."""

    function_name = "agentmem-local"
    function_version = "$LATEST"
    memory_limit_in_mb = 0
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:agentmem-local"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def to_proxy_event(
    method: str, raw_path: str, headers: dict[str, str], body: bytes, peer: str
) -> dict[str, Any]:
    """An API Gateway REST (v1) proxy event for one HTTP request."""
    parts = urlsplit(raw_path)
    path = unquote(parts.path)  # API Gateway hands the Lambda a decoded path
    multi = parse_qs(parts.query, keep_blank_values=True)
    try:
        text, encoded = (body.decode("utf-8"), False) if body else (None, False)
    except UnicodeDecodeError:
        # API Gateway hands undecodable bodies over base64-encoded; the resolver then answers 400.
        text, encoded = base64.b64encode(body).decode("ascii"), True
    request_id = str(uuid.uuid4())
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in multi.items()} or None,
        "multiValueQueryStringParameters": multi or None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "httpMethod": method,
            "path": path,
            "resourcePath": path,
            "stage": "local",
            "requestId": request_id,
            "identity": {"sourceIp": peer},
            # The loopback stand-in for an authorizer (see agentmem.api.principals).
            **(
                {"authorizer": {"principals": principals}}
                if (principals := _local_principals(headers))
                else {}
            ),
        },
        "body": text,
        "isBase64Encoded": encoded,
    }


def _local_principals(headers: dict[str, str]) -> str:
    return next((v for k, v in headers.items() if k.lower() == "x-agentmem-principals"), "")


class ResolverPool:
    """Powertools resolvers keep the current event on the instance, so one must never serve two
    requests at once. A small pool gives each in-flight request its own."""

    def __init__(self, factory: Callable[[], APIGatewayRestResolver], size: int) -> None:
        self._idle: queue.LifoQueue[APIGatewayRestResolver] = queue.LifoQueue()
        self._factory = factory
        self._slots = threading.BoundedSemaphore(size)

    def resolve(self, event: dict[str, Any]) -> dict[str, Any]:
        with self._slots:
            try:
                app = self._idle.get_nowait()
            except queue.Empty:
                app = self._factory()
            try:
                return app.resolve(event, LocalContext())  # type: ignore[arg-type]
            finally:
                self._idle.put(app)


def make_handler(pool: ResolverPool, max_body_bytes: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so clients reuse connections
        server_version = "agentmem"
        # Headers and body go out in two writes; with Nagle on, the second waits ~40 ms for the
        # client's delayed ACK on every request.
        disable_nagle_algorithm = True

        def _dispatch(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > max_body_bytes:
                message = f"request body is {length} bytes; the limit is {max_body_bytes} bytes"
                error = {"code": "payload_too_large", "message": message, "field": "body"}
                self._send_json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, json.dumps({"error": error}).encode())
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            event = to_proxy_event(self.command, self.path, headers, body, self.client_address[0])
            result = pool.resolve(event)
            payload = result.get("body") or ""
            data = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode("utf-8")
            self.send_response(result["statusCode"])
            multi = result.get("multiValueHeaders") or {
                k: [v] for k, v in (result.get("headers") or {}).items()
            }
            for name, values in multi.items():
                for value in values:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _send_json(self, status: HTTPStatus, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        # Every method goes to the resolver, which answers JSON (404/405) for what it does not serve.
        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _dispatch
        do_TRACE = do_CONNECT = do_QUERY = _dispatch

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("http", extra={"peer": self.client_address[0], "line": format % args})

    return Handler


class LocalServer:
    """Run the API on `host:port` (port 0 picks a free one) in a background thread."""

    def __init__(
        self,
        resolver_factory: Callable[[], APIGatewayRestResolver],
        *,
        host: str = "127.0.0.1",
        port: int = 8787,
        max_request_bytes: int = 5 * 1024 * 1024,
        pool_size: int = 16,
    ) -> None:
        pool = ResolverPool(resolver_factory, pool_size)
        handler = make_handler(pool, max_request_bytes * HARD_BODY_CAP_FACTOR + 64 * 1024)
        self._httpd = ThreadingHTTPServer((host, port), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="agentmem-http", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
