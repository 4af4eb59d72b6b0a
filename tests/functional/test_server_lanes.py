"""The server's worker lanes, hang-ups and shutdown, observed through a probe resolver whose
`/v1/slow` route holds its worker thread until the test lets it go."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest
import urllib3
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem.entrypoints.server import LocalServer, ServerLimits
from tests.functional.raw_http import HANG_SECONDS, address, read_response, request_head


class Probe:
    """A resolver factory; `entered` counts requests inside /v1/slow, `release` lets them out."""

    def __init__(self) -> None:
        self.entered = threading.Semaphore(0)
        self.release = threading.Event()
        self.finished: list[str] = []

    def __call__(self) -> APIGatewayRestResolver:
        app = APIGatewayRestResolver()

        @app.get("/v1/health")
        def health() -> dict[str, str]:
            return {"status": "ok"}

        @app.get("/v1/slow")
        def slow() -> dict[str, str]:
            self.entered.release()
            self.release.wait(HANG_SECONDS)
            self.finished.append("slow")
            return {"slow": "done"}

        return app

    def wait_entered(self, count: int) -> None:
        for _ in range(count):
            assert self.entered.acquire(timeout=HANG_SECONDS), "a slow request never reached the resolver"


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "condition never became true"
        time.sleep(0.01)


@pytest.fixture
def probe() -> Iterator[Probe]:
    probe = Probe()
    yield probe
    probe.release.set()  # never leave a worker thread parked


def get(url: str, path: str) -> urllib3.BaseHTTPResponse:
    return urllib3.request("GET", url + path, retries=False, timeout=HANG_SECONDS)


def test_health_answers_while_every_api_worker_is_busy(probe: Probe) -> None:
    limits = ServerLimits(api_workers=2, health_workers=1)
    with LocalServer(probe, port=0, limits=limits) as server, ThreadPoolExecutor(2) as pool:
        slow = [pool.submit(get, server.url, "/v1/slow") for _ in range(2)]
        probe.wait_entered(2)
        assert get(server.url, "/v1/health").status == 200
        probe.release.set()
        assert [f.result().status for f in slow] == [200, 200]


def test_request_that_waits_past_the_queue_timeout_is_503_with_retry_after(probe: Probe) -> None:
    limits = ServerLimits(api_workers=1, queue_timeout_seconds=0.2)
    with LocalServer(probe, port=0, limits=limits) as server, ThreadPoolExecutor(1) as pool:
        first = pool.submit(get, server.url, "/v1/slow")
        probe.wait_entered(1)
        second = get(server.url, "/v1/slow")
        assert second.status == 503
        assert second.headers["Retry-After"] == "1"
        assert second.json()["error"]["code"] == "server_busy"
        probe.release.set()
        assert first.result().status == 200


def test_client_hanging_up_is_one_log_line_and_no_traceback(
    probe: Probe, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with LocalServer(probe, port=0) as server:
        sock = socket.create_connection(address(server.url), timeout=HANG_SECONDS)
        sock.sendall(request_head("GET", "/v1/slow"))
        probe.wait_entered(1)
        sock.close()
        # The server has noticed once the connection is gone from its books; then let the route finish.
        wait_until(lambda: not server._server.server_state.connections)
        probe.release.set()
        wait_until(lambda: any(r.getMessage() == "client hung up before the answer" for r in caplog.records))
    hung_up = [r for r in caplog.records if r.getMessage() == "client hung up before the answer"]
    assert len(hung_up) == 1
    assert (hung_up[0].__dict__["method"], hung_up[0].__dict__["path"]) == ("GET", "/v1/slow")
    assert probe.finished == ["slow"]  # the request still ran to the end; only its answer was dropped
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_stop_finishes_the_request_in_flight_then_refuses_connections(probe: Probe) -> None:
    server = LocalServer(probe, port=0).start()
    with ThreadPoolExecutor(2) as pool:
        in_flight: Future[Any] = pool.submit(get, server.url, "/v1/slow")
        probe.wait_entered(1)
        stopping = pool.submit(server.stop)
        wait_until(lambda: server._server.should_exit)
        probe.release.set()
        response = in_flight.result()
        stopping.result(timeout=HANG_SECONDS * 2)
    assert (response.status, response.json()) == (200, {"slow": "done"})
    with pytest.raises(urllib3.exceptions.HTTPError):
        get(server.url, "/v1/health")


def test_pipelined_requests_get_answers_in_order(probe: Probe) -> None:
    with (
        LocalServer(probe, port=0) as server,
        socket.create_connection(address(server.url), timeout=HANG_SECONDS) as sock,
        sock.makefile("rb") as stream,
    ):
        sock.sendall(request_head("GET", "/v1/health") * 2)
        assert [read_response(stream, 0.0).status for _ in range(2)] == [200, 200]
