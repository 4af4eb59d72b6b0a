"""`agentmem serve` against clients that lie about, stall on, or overflow their requests.

Every case is answered (or closed) within a bound: the server's read timeout is 0.5 s here and
each test allows 10 s, so a hang fails and a slow machine does not."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator

import pytest

from agentmem.api.app import build_resolver
from agentmem.entrypoints.server import LocalServer, ServerLimits
from agentmem.entrypoints.server.local_server import HARD_BODY_CAP_FACTOR, HARD_BODY_CAP_SLACK
from agentmem.wiring import Services
from tests.functional.raw_http import HANG_SECONDS, address, chunked, exchange, read_response, request_head

REQUEST_MAX = 4096
BODY_CAP = REQUEST_MAX * HARD_BODY_CAP_FACTOR + HARD_BODY_CAP_SLACK
READ_TIMEOUT = 0.5
EVENT = {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "note", "content": "ok"}
JSON = "Content-Type: application/json"


@pytest.fixture
def server(services: Services) -> Iterator[LocalServer]:
    limits = ServerLimits(read_timeout_seconds=READ_TIMEOUT)
    with LocalServer(
        lambda: build_resolver(services), port=0, max_request_bytes=REQUEST_MAX, limits=limits
    ) as running:
        yield running


def post_events(session: str, *headers: str) -> bytes:
    return request_head("POST", f"/v1/sessions/{session}/events", JSON, *headers)


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", "99999999999999999999999999"])
def test_content_length_that_is_not_a_count_is_400_json(server: LocalServer, length: str) -> None:
    response = exchange(server.url, post_events("s1", f"Content-Length: {length}"), b"{}")
    assert response.status == 400
    assert response.json()["error"]["field"] == "content-length"
    assert response.headers["connection"] == "close"


def test_content_length_longer_than_the_body_is_408_within_the_read_timeout(
    server: LocalServer, services: Services
) -> None:
    body = json.dumps(EVENT).encode()
    response = exchange(server.url, post_events("s1", f"Content-Length: {len(body) + 100}"), body)
    assert response.status == 408
    assert response.json()["error"] == {
        "code": "request_timeout",
        "message": f"the request body did not arrive within {READ_TIMEOUT:g} s",
        "field": "body",
    }
    assert response.elapsed < HANG_SECONDS
    assert services.event_log.last_seq("s1") == 0


def test_half_sent_headers_are_408_within_the_read_timeout(server: LocalServer) -> None:
    response = exchange(server.url, b"POST /v1/sessions/s1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    assert response.status == 408
    assert response.json()["error"]["field"] == "headers"
    assert response.elapsed < HANG_SECONDS


def test_a_connection_that_sends_nothing_is_closed(server: LocalServer) -> None:
    response = exchange(server.url)
    assert (response.status, response.body) == (None, b"")
    assert response.elapsed < HANG_SECONDS


def test_chunked_body_is_read_and_appended(server: LocalServer, services: Services) -> None:
    body = json.dumps(EVENT).encode()
    response = exchange(
        server.url, post_events("s1", "Transfer-Encoding: chunked"), chunked(body[:10], body[10:])
    )
    assert response.status == 201, response.body
    assert response.json()["seq"] == 1
    assert services.event_log.last_seq("s1") == 1


def test_chunked_body_past_the_cap_is_413(server: LocalServer, services: Services) -> None:
    piece = b"x" * 8192
    pieces = [piece] * (BODY_CAP // len(piece) + 1)  # just past the cap; no terminating chunk
    response = exchange(
        server.url, post_events("s1", "Transfer-Encoding: chunked"), chunked(*pieces, last=False)
    )
    assert response.status == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert services.event_log.last_seq("s1") == 0


def test_declared_length_past_the_cap_is_413_before_any_body_is_sent(server: LocalServer) -> None:
    # Only the headers go out: the answer can come only from the declared length.
    response = exchange(server.url, post_events("s1", "Content-Length: 300000000"))
    assert response.status == 413
    assert str(BODY_CAP) in response.json()["error"]["message"]
    assert response.headers["connection"] == "close"


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({**EVENT, "round": "R"}, "round", "number_too_long"),
        ({**EVENT, "content": {"figures": [1, "R"]}}, "content", "number_too_long"),
        ({**EVENT, "round": "NaN"}, "round", "invalid_number"),
        ({**EVENT, "content": {"x": "1e999"}}, "content", "number_out_of_range"),
    ],
)
def test_unreadable_number_is_400_naming_the_field(
    server: LocalServer, services: Services, body: dict[str, object], field: str, code: str
) -> None:
    # R stands for a 5,001-digit integer, past Python's 4,300-digit parsing limit.
    text = json.dumps(body).replace('"R"', "9" * 5001).replace('"NaN"', "NaN").replace('"1e999"', "1e999")
    data = text.encode()
    response = exchange(server.url, post_events("s1", f"Content-Length: {len(data)}"), data)
    assert response.status == 400, response.body
    assert (response.json()["error"]["field"], response.json()["error"]["code"]) == (field, code)
    assert services.event_log.last_seq("s1") == 0


def test_300_concurrent_connections_are_all_answered(services: Services) -> None:
    # The default read timeout: on a loaded machine, 300 clients in one process may take longer
    # than the fixture's 0.5 s between connecting and sending their request.
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        statuses = asyncio.run(health_from_300_connections_at_once(server.url))
    assert statuses == [200] * 300


async def health_from_300_connections_at_once(url: str) -> list[int]:
    host, port = address(url)

    async def health() -> int:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(request_head("GET", "/v1/health", "Connection: close"))
        data = await reader.read()
        writer.close()
        return int(data.split(b" ", 2)[1])

    return await asyncio.wait_for(asyncio.gather(*(health() for _ in range(300))), timeout=60)


def test_keep_alive_connection_serves_requests_in_turn(server: LocalServer) -> None:
    with (
        socket.create_connection(address(server.url), timeout=HANG_SECONDS) as sock,
        sock.makefile("rb") as stream,
    ):
        for _ in range(3):
            sock.sendall(request_head("GET", "/v1/health"))
            assert read_response(stream, 0.0).status == 200


@pytest.mark.parametrize("path", ["/v1/subjects/a%0Ab/beliefs/k", "/v1/sessions/%F2%AF%8B%8E/events", "/%0A"])
def test_odd_paths_get_the_api_json_error(server: LocalServer, path: str) -> None:
    response = exchange(server.url, request_head("GET", path))
    assert response.status is not None and 400 <= response.status < 500
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["code"]


def test_endless_headers_are_431(server: LocalServer) -> None:
    # h11 checks its 16 KiB cap on headers still incomplete after a read; asyncio reads at most
    # 256 KiB at a time, so 300 KiB of headers can never be taken in.
    response = exchange(server.url, request_head("GET", "/v1/health", "X-Padding: " + "p" * 300_000))
    assert response.status == 431
    assert response.json()["error"]["code"] == "bad_request"
