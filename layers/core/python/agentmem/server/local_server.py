"""`LocalServer`: the API on uvicorn (h11), in the foreground or in a background thread.

The app is a Starlette router, so other ASGI apps (an MCP endpoint, an inspector) can be mounted
beside the resolver; an API-key gate sits in front of all of them. See docs/local-server.md for every
limit and why it is set where it is."""

from __future__ import annotations

import ipaddress
import logging
import resource
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import uvicorn
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from starlette.routing import BaseRoute, Router
from starlette.types import ASGIApp

from agentmem.server.api_keys import ApiKeyGate, ApiKeys
from agentmem.server.protocol import GuardedH11Protocol
from agentmem.server.resolver_app import ResolverApp
from agentmem.server.workers import WorkerLanes

logger = logging.getLogger(__name__)

# Bodies past this are refused before they are read: the API's own 413 covers anything smaller.
HARD_BODY_CAP_FACTOR = 2
HARD_BODY_CAP_SLACK = 64 * 1024


@dataclass(frozen=True)
class ServerLimits:
    # Headers must arrive within this of the connection opening (or of a request's first byte),
    # and the body within this of the headers; 408 and close otherwise.
    read_timeout_seconds: float = 30.0
    keep_alive_seconds: int = 5  # an idle keep-alive connection is closed after this
    backlog: int = 2048  # the kernel caps it at net.core.somaxconn
    max_connections: int = 2048  # past this, new requests get 503 at once (uvicorn limit_concurrency)
    max_header_bytes: int = 16 * 1024  # h11's incomplete-event cap: longer headers get 431
    api_workers: int = 16  # resolver threads for the API
    health_workers: int = 2  # and a lane of its own for /v1/health
    queue_timeout_seconds: float = 30.0  # longest wait for a worker before 503 + Retry-After
    shutdown_grace_seconds: int = 30  # in-flight requests get this long after SIGTERM/SIGINT


class UnsafeBindError(ValueError):
    """A non-loopback address without API keys: any process on the network could claim any
    principal with the development header."""


def is_loopback_host(host: str) -> bool:
    """True when every address `host` resolves to is a loopback one."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror:
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses)


def raise_open_file_limit(wanted: int) -> None:
    """Each connection is a descriptor; lift the soft limit (often 1,024) towards the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def build_app(
    resolver_factory: Callable[[], APIGatewayRestResolver],
    *,
    limits: ServerLimits,
    body_cap_bytes: int,
    api_keys: ApiKeys | None,
    mounts: list[BaseRoute] | None = None,
) -> ASGIApp:
    """The API-key gate, in front of a Starlette router: `mounts` (other ASGI apps, e.g.
    `Mount("/mcp", app)`) first, and every other request to the resolver. The resolver is the
    router's default rather than a `Mount("/")`, whose pattern would not match a path holding a
    decoded newline: the resolver answers those (404 JSON) like any other unknown path."""
    lanes = WorkerLanes(
        resolver_factory,
        api_workers=limits.api_workers,
        health_workers=limits.health_workers,
        queue_timeout_seconds=limits.queue_timeout_seconds,
    )
    resolver = ResolverApp(
        lanes, body_cap_bytes=body_cap_bytes, read_timeout_seconds=limits.read_timeout_seconds
    )
    router = Router(routes=mounts or [], default=resolver, redirect_slashes=False)
    return ApiKeyGate(router, api_keys)


def _listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=backlog)


class LocalServer:
    """Run the API on `host:port` (port 0 picks a free one). The socket is bound here, so `url`
    is known at once and a port in use fails at construction."""

    def __init__(
        self,
        resolver_factory: Callable[[], APIGatewayRestResolver],
        *,
        host: str = "127.0.0.1",
        port: int = 8787,
        max_request_bytes: int = 5 * 1024 * 1024,
        pool_size: int | None = None,
        limits: ServerLimits | None = None,
        api_keys: ApiKeys | None = None,
        mounts: list[BaseRoute] | None = None,
    ) -> None:
        if api_keys is None and not is_loopback_host(host):
            raise UnsafeBindError(
                f"refusing to serve on {host}: off loopback, set AGENTMEM_API_KEYS so every caller"
                " needs a key (without keys any process could claim any principal)"
            )
        limits = limits or ServerLimits()
        if pool_size is not None:
            limits = replace(limits, api_workers=pool_size)
        self.limits = limits
        app = build_app(
            resolver_factory,
            limits=limits,
            body_cap_bytes=max_request_bytes * HARD_BODY_CAP_FACTOR + HARD_BODY_CAP_SLACK,
            api_keys=api_keys,
            mounts=mounts,
        )
        protocol = type("Protocol", (GuardedH11Protocol,), {"header_timeout": limits.read_timeout_seconds})
        self._config = uvicorn.Config(
            app,
            http=protocol,
            ws="none",
            loop="asyncio",
            lifespan="on",
            log_config=None,  # logging is the caller's (agentmem.observability)
            access_log=False,
            proxy_headers=False,  # no proxy in front: X-Forwarded-For is the client's own claim
            server_header=False,
            backlog=limits.backlog,
            limit_concurrency=limits.max_connections,
            timeout_keep_alive=limits.keep_alive_seconds,
            timeout_graceful_shutdown=limits.shutdown_grace_seconds,
            h11_max_incomplete_event_size=limits.max_header_bytes,
        )
        self._server = uvicorn.Server(self._config)
        self._socket = _listening_socket(host, port, limits.backlog)
        bound_host, bound_port = self._socket.getsockname()[:2]
        self._url = (
            f"http://[{bound_host}]:{bound_port}"
            if ":" in bound_host
            else f"http://{bound_host}:{bound_port}"
        )
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self._url

    def serve_forever(self) -> None:
        """Serve in this thread. In the main thread SIGINT and SIGTERM shut down gracefully:
        stop accepting, finish in-flight requests (up to the grace period), then return; uvicorn
        then re-raises the signal, so the caller's own handling still runs."""
        raise_open_file_limit(self.limits.max_connections + 256)
        self._server.run(sockets=[self._socket])

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self.serve_forever, name="agentmem-http", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the local server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=self.limits.shutdown_grace_seconds + 5)
        self._socket.close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
