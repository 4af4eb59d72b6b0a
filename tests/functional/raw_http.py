"""Raw HTTP/1.1 over a socket, for requests no well-behaved client library would send."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import urlsplit

# Generous: a test that waits this long has found a hang, not a slow machine.
HANG_SECONDS = 10.0


@dataclass
class RawResponse:
    status: int | None  # None: the server closed without answering
    headers: dict[str, str]
    body: bytes
    elapsed: float

    def json(self) -> Any:
        return json.loads(self.body)


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def read_response(stream: BinaryIO, started: float) -> RawResponse:
    """Read one response from `sock.makefile("rb")`: up to its Content-Length, or until the
    server closes. Reading through one buffered file keeps pipelined responses apart."""
    status_line = stream.readline()
    if not status_line:
        return RawResponse(None, {}, b"", time.monotonic() - started)
    headers: dict[str, str] = {}
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "-1"))
    body = stream.read(length) if length >= 0 else stream.read()
    return RawResponse(int(status_line.split()[1]), headers, body, time.monotonic() - started)


def exchange(url: str, *parts: bytes) -> RawResponse:
    """Send `parts` in order (nothing more), then read the answer within HANG_SECONDS."""
    with socket.create_connection(address(url), timeout=HANG_SECONDS) as sock:
        started = time.monotonic()
        for part in parts:
            sock.sendall(part)
        with sock.makefile("rb") as stream:
            return read_response(stream, started)


def request_head(method: str, path: str, *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunked(*pieces: bytes, last: bool = True) -> bytes:
    body = b"".join(f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in pieces)
    return body + (b"0\r\n\r\n" if last else b"")
