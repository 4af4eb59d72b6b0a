"""The contract of the inspector's Transport (agentmem.inspector.reader): carry one API call as a
viewer and hand back the API's own answer. Both transports (in process through the resolver, over
HTTP through MemoryClient) must agree with a plain API client on the same server, raise the API's
error as MemoryApiError, and make the call as the viewer (its claimed principals), never as anyone
else. Each test class provides `transport` over the module's running server."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from agentmem.client import MemoryApiError, MemoryClient
from agentmem.compose.model import Asset
from agentmem.inspector.reader import Transport, Viewer

HIDDEN = Asset(
    asset_id="note:finance.only",
    path="notes/finance/only",
    kind="note",
    title="Finance only",
    principals=["finance"],
    updated_at=datetime(2026, 1, 1, tzinfo=UTC),
)


def seed(url: str) -> None:
    client = MemoryClient(url, local_principals="writer,finance")
    client.put_assets([HIDDEN])
    body = {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "note", "content": "hello"}
    client.request("POST", "/v1/sessions/s1/events", {**body, "idempotency_key": "contract-1"})


class TransportContract:
    @pytest.fixture
    def transport(self) -> Transport:
        raise NotImplementedError

    @pytest.fixture
    def url(self) -> str:
        raise NotImplementedError

    def test_a_read_answers_what_the_api_answers(self, transport: Transport, url: str) -> None:
        got: Any = transport.call("GET", "/v1/sessions/s1/events", Viewer(), query={"limit": 5}, body=None)
        expected = MemoryClient(url).request("GET", "/v1/sessions/s1/events", query={"limit": 5})
        assert got == expected and got["items"][0]["content"] == "hello"

    def test_a_read_with_a_body_is_sent_as_json(self, transport: Transport) -> None:
        body = {
            "subject_id": "priya",
            "session_id": "s1",
            "agent": "a",
            "query": "hello",
            "budget_tokens": 200,
        }
        got: Any = transport.call("POST", "/v1/context", Viewer(), query=None, body=body)
        assert got["trace"]["budget_tokens"] == 200 and got["trace"]["log_watermark_seq"] == 1

    def test_an_api_error_arrives_with_its_status_code_and_field(self, transport: Transport) -> None:
        with pytest.raises(MemoryApiError) as caught:
            transport.call("GET", "/v1/sessions/s1/events", Viewer(), query={"limit": 0}, body=None)
        assert caught.value.status == 422 and caught.value.field == "limit"

    def test_the_call_is_made_as_the_viewer(self, transport: Transport) -> None:
        path = f"/v1/assets/{HIDDEN.asset_id}"
        with pytest.raises(MemoryApiError) as caught:
            transport.call("GET", path, Viewer(), query=None, body=None)
        assert caught.value.status == 404  # answered as absent to a caller who may not read it
        assert (
            transport.call("GET", path, Viewer(claimed="finance"), query=None, body=None)["title"]
            == "Finance only"
        )
