"""`agentmem serve` behaviour over real HTTP: concurrency, faults, blobs, the typed client."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import urllib3

from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.errors import BackendUnavailableError
from agentmem.model.events import AppendOutcome, Event, EventDraft
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


@pytest.fixture
def server(services: Services) -> Iterator[LocalServer]:
    with LocalServer(lambda: build_resolver(services), port=0) as running:
        yield running


class ThrottledLog:
    """An EventLog whose backend is throttling: every call fails as DynamoDB would under load."""

    def __init__(self) -> None:
        self.attempts = 0

    def append(self, draft: EventDraft) -> AppendOutcome:
        self.attempts += 1
        raise BackendUnavailableError("throughput exceeded", retry_after_seconds=2)

    def list_events(self, session_id: str, **_: object) -> list[Event]:
        raise BackendUnavailableError("throughput exceeded", retry_after_seconds=2)

    def last_seq(self, session_id: str) -> int:
        return 0

    def has_subject(self, subject_id: str) -> bool:
        raise BackendUnavailableError("throughput exceeded", retry_after_seconds=2)


def test_concurrent_http_clients_get_gap_free_seqs(server: LocalServer) -> None:
    client = MemoryClient(server.url)

    def write(worker: int) -> list[int]:
        return [
            client.append_event(
                "hot",
                subject_id="priya",
                round=i,
                agent=f"agent-{worker}",
                kind="note",
                content=f"output {worker}/{i}",
            ).seq
            for i in range(25)
        ]

    with ThreadPoolExecutor(max_workers=8) as pool:
        seqs = sorted(s for batch in pool.map(write, range(8)) for s in batch)
    assert seqs == list(range(1, 201))
    stored = client.list_events("hot", limit=1000).items
    assert [e.seq for e in stored] == seqs
    # Each request was answered with its own event: nothing lost, nothing answered twice.
    assert {e.content for e in stored} == {f"output {w}/{i}" for w in range(8) for i in range(25)}


def test_throttled_backend_answers_503_with_retry_after(settings: Settings) -> None:
    log = ThrottledLog()
    services = bootstrap(settings, event_log=log)
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        response = urllib3.request(
            "POST",
            f"{server.url}/v1/sessions/s1/events",
            json={"subject_id": "p", "round": 0, "agent": "a", "kind": "k", "content": "x"},
            retries=False,
        )
        assert response.status == 503
        assert response.headers["Retry-After"] == "2"
        assert response.json()["error"]["code"] == "backend_unavailable"
        # The client retries what the API marks retryable, then surfaces the 503 as a typed error.
        with pytest.raises(MemoryApiError) as raised:
            MemoryClient(server.url, retries=1).list_events("s1")
        assert raised.value.status == 503


def test_blob_is_offloaded_once_and_resolved_on_request(server: LocalServer, services: Services) -> None:
    client = MemoryClient(server.url)
    csv = "date,amount\n" + "2026-01-01,10.00\n" * 4000
    first = client.append_event(
        "s1", subject_id="p", round=0, agent="a", kind="upload", content=csv, media_type="text/csv"
    )
    second = client.append_event(
        "s2", subject_id="p", round=0, agent="a", kind="upload", content=csv, media_type="text/csv"
    )
    assert first.stored == second.stored == "blob"
    ref = client.list_events("s1").items[0].blob
    assert ref is not None
    assert (ref.bytes, ref.media_type) == (len(csv.encode()), "text/csv")
    assert ref.preview.startswith("date,amount\n2026-01-01")
    assert ref.uri == client.list_events("s2").items[0].blob.uri  # type: ignore[union-attr]
    blob_files = [p for p in (services.settings.data_dir / "blobs").rglob("*") if p.is_file()]
    assert len(blob_files) == 1
    resolved = client.list_events("s1", resolve_blobs=True).items[0]
    assert resolved.content == csv


def test_json_content_round_trips_exactly(server: LocalServer) -> None:
    client = MemoryClient(server.url)
    content = {"amount": 12.5, "nested": {"list": [1, "two", None, True]}, "unicode": "Zoë ✓"}
    client.append_event("s1", subject_id="p", round=0, agent="a", kind="k", content=content)
    assert client.list_events("s1").items[0].content == content


def test_reused_idempotency_key_with_another_body_is_409(server: LocalServer) -> None:
    client = MemoryClient(server.url)
    client.append_event(
        "s1", subject_id="p", round=0, agent="a", kind="k", content="one", idempotency_key="k1"
    )
    with pytest.raises(MemoryApiError) as raised:
        client.append_event(
            "s1", subject_id="p", round=0, agent="a", kind="k", content="two", idempotency_key="k1"
        )
    assert (raised.value.status, raised.value.field) == (409, "idempotency_key")
    assert len(client.list_events("s1").items) == 1


def test_unknown_route_is_404_json(server: LocalServer) -> None:
    response = urllib3.request("GET", f"{server.url}/v2/nothing")
    assert response.status == 404
    assert response.json()["error"]["code"] == "no_route"


def test_health_reports_backend_and_tenant(server: LocalServer) -> None:
    assert MemoryClient(server.url).health() | {"version": None} == {
        "status": "ok",
        "version": None,
        "backend": "local",
        "tenant": "local",
    }
