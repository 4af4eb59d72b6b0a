"""uvicorn's h11 protocol with the one guard it lacks: a deadline for the request headers.

uvicorn arms its keep-alive timer only after a response and cancels it on the first byte of the
next request, so a connection that sends nothing, or half a request line and then nothing, stays
open for ever (it holds no thread, but a socket and a slot of `limit_concurrency`). Here a
connection gets `header_timeout` seconds, from when it opens or from the first byte of each
request, to deliver complete headers; then it is answered 408 (or just closed, if it sent
nothing) and closed. Requests the parser refuses are answered with the API's JSON error shape."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from http import HTTPStatus
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)


def _json_error(code: str, message: str, field: str | None) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "field": field}}).encode()


def _field_named_by(reason: str) -> str | None:
    lowered = reason.lower()
    for header in ("content-length", "transfer-encoding", "host"):
        if header in lowered:
            return header
    return None


class GuardedH11Protocol(H11Protocol):
    header_timeout: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # a partial request: the clock runs from its first byte
        else:
            self._disarm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        if self._header_timer is None and not self.transport.is_closing():
            self._header_timer = self.loop.call_later(self.header_timeout, self._headers_timed_out)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is still going out; the keep-alive rules take over after it
        partial, _ = self.conn.trailing_data
        if partial:
            # h11 cannot answer a request it has not parsed, so the 408 is written directly.
            peer = self.client[0] if self.client else ""
            logger.info("request headers timed out", extra={"peer": peer, "bytes": len(partial)})
            body = _json_error(
                "request_timeout",
                f"the request headers did not arrive within {self.header_timeout:g} s",
                "headers",
            )
            head = (
                "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
            )
            self.transport.write(head.encode("ascii") + body)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        # Called from inside uvicorn's `except h11.RemoteProtocolError`, which holds the reason.
        error = sys.exc_info()[1]
        reason = str(error) if isinstance(error, h11.RemoteProtocolError) and str(error) else msg
        status = error.error_status_hint if isinstance(error, h11.RemoteProtocolError) else 400
        body = _json_error("bad_request", f"malformed HTTP request: {reason}", _field_named_by(reason))
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        try:
            response = h11.Response(
                status_code=status, headers=headers, reason=HTTPStatus(status).phrase.encode()
            )
            self.transport.write(self.conn.send(response) or b"")
            self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:
            pass  # the connection cannot carry a response any more: just close it
        self.transport.close()
