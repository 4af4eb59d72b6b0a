"""Both clients retry alike: the statuses the API marks retryable, waiting what `Retry-After`
says (through the injected sleep, never a real one), with one idempotency key per append, and
raise one typed error per kind of answer."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx2
import pytest

from agentmem.client import (
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    MemoryApiError,
    NotFound,
    PayloadTooLarge,
    RetryPolicy,
    ServerError,
    Throttled,
    TransportFailed,
)
from agentmem.client import _memory_calls as calls
from agentmem.client._program import Program
from agentmem.client._retry import parse_retry_after
from agentmem.model.events import AppendEventResponse
from tests.unit.client_doubles import RUNNERS, Script, answer, both, error

ACK = {"event_id": "e1", "seq": 1, "session_id": "s1", "stored": "inline"}


def append() -> Program[AppendEventResponse]:
    return calls.append_event("s1", subject_id="maya", round=0, agent="a", kind="note", content="hello")


@pytest.mark.parametrize("client", RUNNERS)
def test_a_503_is_retried_after_its_retry_after_with_the_same_idempotency_key(client: str) -> None:
    script = Script([error(503, "backend_unavailable", headers={"Retry-After": "2"}), answer(201, ACK)])
    ack = RUNNERS[client](script, append)
    assert ack.seq == 1
    assert script.slept == [2.0]
    first, second = script.bodies()
    assert first == second and first["idempotency_key"].startswith("auto-")


@pytest.mark.parametrize("client", RUNNERS)
def test_every_append_carries_a_key_and_a_given_key_is_kept(client: str) -> None:
    script = Script([answer(201, ACK)])
    RUNNERS[client](script, append)
    RUNNERS[client](script, append)
    RUNNERS[client](
        script,
        lambda: calls.append_event(
            "s1", subject_id="m", round=0, agent="a", kind="k", content="x", idempotency_key="mine"
        ),
    )
    keys = [b["idempotency_key"] for b in script.bodies()]
    assert keys[0] != keys[1] and keys[2] == "mine"


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_retryable_statuses_back_off_then_raise_and_both_clients_do_the_same(status: int) -> None:
    outcomes = both([answer(status, {"error": {"code": "busy", "message": "m", "field": None}})], append)
    for script, raised in outcomes.values():
        assert len(script.requests) == 4  # the first attempt and three retries
        assert script.slept == [0.2, 0.4, 0.8]
        assert isinstance(raised, Throttled if status in (429, 503) else ServerError)
        assert (raised.status, raised.code) == (status, "busy")
    (sync_script, _), (async_script, _) = outcomes.values()
    assert [r.url for r in sync_script.requests] == [r.url for r in async_script.requests]


def test_a_retry_after_longer_than_the_client_may_wait_is_raised_at_once() -> None:
    outcomes = both([error(503, "backend_unavailable", headers={"Retry-After": "120"})], append)
    for script, raised in outcomes.values():
        assert len(script.requests) == 1 and script.slept == []
        assert isinstance(raised, Throttled) and raised.retry_after_seconds == 120.0


def test_the_policy_is_the_callers() -> None:
    policy = RetryPolicy(retries=1, backoff_seconds=0.05)
    for script, raised in both([error(502, "bad_gateway")], append, retry_policy=policy).values():
        assert script.slept == [0.05] and isinstance(raised, ServerError)
    for script, raised in both([error(503, "x")], append, retries=0).values():
        assert len(script.requests) == 1 and isinstance(raised, Throttled)


def test_no_answer_is_retried_then_raised_as_transport_failed() -> None:
    outcomes = both([httpx2.ConnectError("refused")], append)
    for script, raised in outcomes.values():
        assert len(script.requests) == 4 and script.slept == [0.2, 0.4, 0.8]
        assert isinstance(raised, TransportFailed) and raised.status == 0
    recovered = both([httpx2.ReadTimeout("slow"), answer(201, ACK)], append)
    for script, result in recovered.values():
        assert result.seq == 1 and len({b["idempotency_key"] for b in script.bodies()}) == 1


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "malformed_json", Invalid),
        (403, "forbidden", Forbidden),
        (404, "not_found", NotFound),
        (409, "conflict", Conflict),
        (410, "subject_erased", Gone),
        (413, "payload_too_large", PayloadTooLarge),
        (415, "unsupported_media_type", Invalid),
        (422, "validation_error", Invalid),
        (500, "internal_error", ServerError),
    ],
)
def test_each_error_answer_has_its_class_and_is_not_retried(status: int, code: str, cls: type) -> None:
    for script, raised in both([error(status, code, field="round")], append).values():
        assert len(script.requests) == 1 and script.slept == []
        assert type(raised) is cls and isinstance(raised, MemoryApiError)
        assert (raised.status, raised.code, raised.field) == (status, code, "round")


def test_an_answer_not_in_the_api_shape_still_gets_its_class() -> None:
    html = httpx2.Response(404, text="<html>nope</html>")
    gateway = httpx2.Response(403, json={"message": "Missing Authentication Token"})
    for _, raised in both([html], append).values():
        assert isinstance(raised, NotFound) and raised.code == "http_error" and "nope" in raised.message
    for _, raised in both([gateway], append).values():
        assert isinstance(raised, Forbidden) and raised.message == "Missing Authentication Token"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3", now) == 3.0
    assert parse_retry_after("Sun, 01 Nov 2026 12:00:05 GMT", now) == 5.0
    assert parse_retry_after("Sun, 01 Nov 2026 11:00:00 GMT", now) == 0.0  # in the past: no wait
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None
    assert parse_retry_after("nan", now) is None
