"""The two ways the inspector's API calls travel: through the local server's own resolver, in
process, or over HTTP with `MemoryClient`. Both answer through the API's routes, validation and
access rules; neither is a way around them."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem.client import MemoryApiError, MemoryClient
from agentmem.entrypoints.server.proxy_event import to_proxy_event
from agentmem.entrypoints.server.workers import ResolverPool
from agentmem.inspector.reader import Viewer

INSPECTOR_PEER = "inspector"  # the proxy event's source IP, so logs tell these calls apart


def _query_string(query: Mapping[str, Any] | None) -> str:
    return "?" + urlencode({k: str(v) for k, v in query.items()}) if query else ""


def _raise_for(status: int, payload: Any) -> None:
    error = payload.get("error", {}) if isinstance(payload, dict) else {}
    raise MemoryApiError(
        status, error.get("code", "http_error"), error.get("message", ""), error.get("field")
    )


class ResolverTransport:
    """Calls the resolver the local server runs, as an API Gateway proxy event whose authorizer
    context is the viewer's: the key's grant, or the development principals, exactly as the
    server's own adapter (agentmem.entrypoints.server.resolver_app) would pass them."""

    def __init__(self, resolver_factory: Callable[[], APIGatewayRestResolver], *, workers: int = 4) -> None:
        self._pool = ResolverPool(resolver_factory, workers)

    def call(
        self, method: str, path: str, viewer: Viewer, *, query: Mapping[str, Any] | None, body: Any
    ) -> Any:
        if viewer.authorizer is not None:
            authorizer: dict[str, str] | None = dict(viewer.authorizer)
        else:
            authorizer = {"principals": viewer.claimed} if viewer.claimed else None
        data = json.dumps(body).encode("utf-8") if body is not None else b""
        headers = {"content-type": "application/json", "accept": "application/json"}
        event = to_proxy_event(method, path + _query_string(query), headers, data, INSPECTOR_PEER, authorizer)
        result = self._pool.resolve(event)
        text = result.get("body") or ""
        if result.get("isBase64Encoded"):
            text = base64.b64decode(text).decode("utf-8")
        payload = json.loads(text) if text else None
        if result["statusCode"] >= 400:
            _raise_for(result["statusCode"], payload)
        return payload


class ClientTransport:
    """Calls a deployed tenant (or another `agentmem serve`) over HTTP: SigV4 or an API key are
    the client's, so the remote API decides what this caller may read. Claimed principals go out
    as the development header, which only a keyless loopback server reads."""

    def __init__(self, make_client: Callable[[str | None], MemoryClient]) -> None:
        self._make = make_client
        self._clients: dict[str | None, MemoryClient] = {}
        self._lock = threading.Lock()

    def _client(self, claimed: str | None) -> MemoryClient:
        with self._lock:
            client = self._clients.get(claimed)
            if client is None:
                client = self._clients[claimed] = self._make(claimed)
            return client

    def call(
        self, method: str, path: str, viewer: Viewer, *, query: Mapping[str, Any] | None, body: Any
    ) -> Any:
        return self._client(viewer.claimed).request(method, path, body, dict(query) if query else None)
