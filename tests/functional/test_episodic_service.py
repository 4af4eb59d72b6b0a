"""EpisodicService rules: where content is stored, limits, and idempotency conflicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.episodic.service import PREVIEW_CHARS, EpisodicLimits, EpisodicService
from agentmem.errors import ConflictError, PayloadTooLargeError
from agentmem.model.events import AppendEventRequest

INLINE_MAX = 1000


@pytest.fixture
def service(tmp_path: Path) -> EpisodicService:
    log = SqliteEventLog(SqliteDatabase(tmp_path / "db.sqlite"), "acme")
    return EpisodicService(
        log,
        FolderBlobStore(tmp_path / "blobs"),
        EpisodicLimits(inline_max_bytes=INLINE_MAX, max_request_bytes=5000),
    )


def request(content: object, **extra: object) -> AppendEventRequest:
    return AppendEventRequest.model_validate(
        {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "note", "content": content, **extra}
    )


def test_content_at_the_threshold_stays_inline(service: EpisodicService) -> None:
    outcome = service.append("s", request("a" * INLINE_MAX))
    assert outcome.event.stored == "inline"
    assert outcome.event.content == "a" * INLINE_MAX


def test_one_byte_over_the_threshold_goes_to_the_blob_store(service: EpisodicService) -> None:
    text = "é" * (INLINE_MAX // 2) + "b"  # 1001 UTF-8 bytes: the limit is in bytes, not characters
    outcome = service.append("s", request(text))
    assert outcome.event.stored == "blob"
    assert outcome.event.content is None
    blob = outcome.event.blob
    assert blob is not None
    assert (blob.bytes, blob.media_type) == (INLINE_MAX + 1, "text/plain")
    assert blob.preview == text[:PREVIEW_CHARS]


def test_large_json_is_offloaded_and_resolves_back_to_json(service: EpisodicService) -> None:
    rows = [{"date": f"2026-01-{d:02d}", "amount": d * 1.5} for d in range(1, 29)] * 3
    outcome = service.append("s", request({"rows": rows}))
    assert outcome.event.blob is not None
    assert outcome.event.blob.media_type == "application/json"
    resolved = service.list_events("s", resolve_blobs=True).items[0]
    assert resolved.content == {"rows": rows}
    assert resolved.blob == outcome.event.blob


def test_content_over_the_request_ceiling_is_refused_before_anything_is_stored(
    service: EpisodicService, tmp_path: Path
) -> None:
    with pytest.raises(PayloadTooLargeError) as raised:
        service.append("s", request("z" * 5001))
    assert raised.value.limit_bytes == 5000
    assert raised.value.field == "content"
    assert service.list_events("s").items == []
    assert not any(p.is_file() for p in (tmp_path / "blobs").rglob("*"))


def test_same_key_same_body_is_a_replay_but_another_body_is_a_conflict(service: EpisodicService) -> None:
    first = service.append("s", request("one", idempotency_key="k"))
    replay = service.append("s", request("one", idempotency_key="k"))
    assert replay.created is False
    assert replay.event == first.event
    with pytest.raises(ConflictError) as raised:
        service.append("s", request("two", idempotency_key="k"))
    assert raised.value.field == "idempotency_key"


def test_pages_report_a_cursor_only_when_more_events_exist(service: EpisodicService) -> None:
    for i in range(5):
        service.append("s", request(f"event {i}"))
    first = service.list_events("s", limit=3)
    assert ([e.seq for e in first.items], first.next) == ([1, 2, 3], "3")
    second = service.list_events("s", after=int(first.next or 0), limit=3)
    assert ([e.seq for e in second.items], second.next) == ([4, 5], None)
