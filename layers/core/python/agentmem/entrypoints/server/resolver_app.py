"""The ASGI adapter between the HTTP server and the Powertools resolver.

It reads the body against a cap and a deadline (413 past the cap, before reading it when the
declared length already says so; 408 when the client stalls), turns the request into a proxy
event, runs the resolver in a worker lane, and sends the proxy result back. A client that hangs
up is logged as one line and its answer dropped."""

from __future__ import annotations

import base64
import logging
import time
from typing import Any

import anyio
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from agentmem.entrypoints.server.api_keys import GRANT_SCOPE_KEY, ApiKeyGrant
from agentmem.entrypoints.server.proxy_event import to_proxy_event
from agentmem.entrypoints.server.workers import Lane, ServerBusyError, WorkerLanes

logger = logging.getLogger(__name__)

DEV_PRINCIPALS_HEADER = "x-agentmem-principals"
# Never handed on to the resolver: the key must not reach any route or log.
CREDENTIAL_HEADERS = frozenset({"authorization", "x-agentmem-api-key"})


def json_error(
    status: int, code: str, message: str, field: str | None, *, headers: dict[str, str] | None = None
) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def _close(headers: dict[str, str] | None = None) -> dict[str, str]:
    # Answering before the body is read: close, so the rest of it is never read to reuse the socket.
    return {**(headers or {}), "Connection": "close"}


class ResolverApp:
    def __init__(self, lanes: WorkerLanes, *, body_cap_bytes: int, read_timeout_seconds: float) -> None:
        self._lanes = lanes
        self._cap = body_cap_bytes
        self._read_timeout = read_timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no websockets on this app; the server refuses the upgrade
        started = time.monotonic()
        body = await self._read_body(scope, receive, send)
        if body is None:
            return
        event = self._event(scope, body)
        lane: Lane = "health" if scope["path"] == "/v1/health" else "api"
        answer = await self._answer_unless_gone(event, receive, lane)
        if answer is None:
            logger.info("client hung up before the answer", extra=self._where(scope, started))
            return
        if isinstance(answer, JSONResponse):
            await answer(scope, receive, send)
            return
        await self._send_result(send, answer)
        logger.debug("http", extra={**self._where(scope, started), "status": answer["statusCode"]})

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole body, or None once the client has been answered (413, 408) or has left."""
        declared = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        # h11 has already refused a Content-Length that is not plain digits (400).
        if declared is not None and int(declared) > self._cap:
            await self._too_large(scope, receive, send, int(declared))
            return None
        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self._read_timeout) as deadline:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    logger.info("client hung up while sending the body", extra=self._where(scope, None))
                    return None
                chunk: bytes = message.get("body", b"")
                size += len(chunk)
                if size > self._cap:  # chunked bodies declare no length: counted as they stream
                    await self._too_large(scope, receive, send, None)
                    return None
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        if deadline.cancelled_caught:
            logger.info("request body timed out", extra={**self._where(scope, None), "bytes": size})
            reason = f"the request body did not arrive within {self._read_timeout:g} s"
            await json_error(408, "request_timeout", reason, "body", headers=_close())(scope, receive, send)
            return None
        return b"".join(chunks)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, declared: int | None) -> None:
        size = f"{declared} bytes" if declared is not None else "more than that"
        message = f"request body is {size}; the server reads at most {self._cap} bytes"
        await json_error(413, "payload_too_large", message, "body", headers=_close())(scope, receive, send)

    def _event(self, scope: Scope, body: bytes) -> dict[str, Any]:
        headers = {
            k.decode("latin-1"): v.decode("latin-1")
            for k, v in scope["headers"]
            if k.decode("latin-1") not in CREDENTIAL_HEADERS
        }
        grant: ApiKeyGrant | None = (scope.get("state") or {}).get(GRANT_SCOPE_KEY)
        if grant is not None:
            # Keys are configured: the key's grant is the caller; the dev header means nothing.
            headers.pop(DEV_PRINCIPALS_HEADER, None)
            authorizer: dict[str, str] | None = grant.authorizer_context()
        else:
            claimed = headers.get(DEV_PRINCIPALS_HEADER, "")
            authorizer = {"principals": claimed} if claimed else None
        target = scope["raw_path"].decode("latin-1")
        if scope["query_string"]:
            target += "?" + scope["query_string"].decode("latin-1")
        peer = (scope.get("client") or ("", 0))[0]
        return to_proxy_event(scope["method"], target, headers, body, peer, authorizer)

    async def _answer_unless_gone(
        self, event: dict[str, Any], receive: Receive, lane: Lane
    ) -> dict[str, Any] | JSONResponse | None:
        """The resolver's answer, or None when the client disconnected first. A request still
        queued for a worker is dropped then; one already running finishes (its write is whole)."""
        gone = False
        answer: dict[str, Any] | JSONResponse | None = None
        async with anyio.create_task_group() as group:

            async def watch_for_hang_up() -> None:
                nonlocal gone
                # With the body read, the next message is a disconnect (or never comes).
                if (await receive())["type"] == "http.disconnect":
                    gone = True
                    group.cancel_scope.cancel()

            group.start_soon(watch_for_hang_up)
            answer = await self._answer(event, lane)
            group.cancel_scope.cancel()
        return None if gone else answer

    async def _answer(self, event: dict[str, Any], lane: Lane) -> dict[str, Any] | JSONResponse:
        try:
            return await self._lanes.resolve(event, lane)
        except ServerBusyError as busy:
            return json_error(
                503, "server_busy", f"{busy}; retry shortly", None, headers={"Retry-After": "1"}
            )
        except Exception as exc:  # the resolver maps every route error itself: this is a bug
            logger.exception("resolver failed", extra={"error_type": type(exc).__name__})
            return json_error(500, "internal_error", "internal error", None)

    async def _send_result(self, send: Send, result: dict[str, Any]) -> None:
        payload = result.get("body") or ""
        data = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode("utf-8")
        multi = result.get("multiValueHeaders") or {k: [v] for k, v in (result.get("headers") or {}).items()}
        headers = [
            (name.lower().encode("latin-1"), str(value).encode("latin-1"))
            for name, values in multi.items()
            if name.lower() != "content-length"
            for value in values
        ]
        headers.append((b"content-length", str(len(data)).encode("ascii")))
        await send({"type": "http.response.start", "status": result["statusCode"], "headers": headers})
        await send({"type": "http.response.body", "body": data})

    @staticmethod
    def _where(scope: Scope, started: float | None) -> dict[str, Any]:
        where: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "peer": (scope.get("client") or ("", 0))[0],
        }
        if started is not None:
            where["elapsed_ms"] = round((time.monotonic() - started) * 1000, 1)
        return where
