"""The contract of the erasure ports (ErasureLedger, SubjectLog) and of the event log's half of
erasure: once a subject's tombstone is written, its appends are refused. Each backend's module
subclasses SubjectErasureContract and provides `make(tenant)`: a log, its subject view and its
ledger over one backing store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from agentmem.errors import NotFoundError, SubjectErasedError
from agentmem.model.events import BlobRef, EventDraft
from agentmem.ports import EventLog
from agentmem.subjects.identity import subject_hash
from agentmem.subjects.model import ErasureRecord, TierProgress
from agentmem.subjects.ports import ErasureLedger, SubjectLog

_ids = iter(range(10**9))
_lock = threading.Lock()
SHARED, OWN = "a" * 64, "b" * 64


@dataclass
class Backend:
    log: EventLog
    subjects: SubjectLog
    ledger: ErasureLedger


Factory = Callable[[str], Backend]


def event(subject: str, session: str, *, blob: str | None = None, idem: str | None = None) -> EventDraft:
    with _lock:
        n = next(_ids)
    ref = (
        BlobRef(uri=f"mem://{blob}", bytes=10, sha256=blob, media_type="text/plain", preview="p")
        if blob
        else None
    )
    return EventDraft(
        event_id=f"ev_{n}", session_id=session, subject_id=subject, round=0, agent="a", kind="note",
        media_type="text/plain", content=None if ref else f"said by {subject}", blob=ref,
        idempotency_key=idem, request_hash="h", created_at="2026-11-30T00:00:00.000Z",
    )  # fmt: skip


def record(tenant: str, subject: str, erasure_id: str = "er_1") -> ErasureRecord:
    return ErasureRecord(
        erasure_id=erasure_id, subject_hash=subject_hash(tenant, subject), state="running",
        requested_at="2026-12-01T00:00:00.000Z", updated_at="2026-12-01T00:00:00.000Z",
        tiers={"events": TierProgress()},
    )  # fmt: skip


class SubjectErasureContract:
    @pytest.fixture
    def make(self) -> Factory:
        raise NotImplementedError

    @pytest.fixture
    def backend(self, make: Factory) -> Backend:
        return make("acme")

    @pytest.fixture
    def written(self, backend: Backend) -> Backend:
        """Alice in two sessions (one shared with Bob), a blob of her own and one she shares."""
        log = backend.log
        log.append(event("alice", "s2", idem="k1"))
        log.append(event("alice", "s1", blob=OWN))
        log.append(event("bob", "s1", blob=SHARED))
        log.append(event("alice", "s1", blob=SHARED, idem="k2"))
        log.append(event("bob", "s3"))
        return backend

    def test_open_writes_the_tombstone_once_and_a_repeat_returns_the_first_record(
        self, backend: Backend
    ) -> None:
        first = backend.ledger.open("alice", record("acme", "alice", "er_1"))
        again = backend.ledger.open("alice", record("acme", "alice", "er_2"))

        assert first.erasure_id == again.erasure_id == "er_1"
        assert backend.ledger.erased(["alice", "bob"]) == {"alice"}
        with pytest.raises(NotFoundError):
            backend.ledger.get("er_2")

    def test_saved_progress_reads_back(self, backend: Backend) -> None:
        opened = backend.ledger.open("alice", record("acme", "alice"))
        done = opened.with_tier("events", TierProgress(status="done", removed=3), "later").finished("later")

        backend.ledger.save(done)

        assert backend.ledger.get("er_1") == done

    def test_an_unknown_erasure_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            backend.ledger.get("er_missing")

    def test_tombstones_are_per_tenant(self, make: Factory) -> None:
        acme, other = make("acme"), make("other")
        acme.ledger.open("alice", record("acme", "alice"))

        assert other.ledger.erased(["alice"]) == set()
        other.log.append(event("alice", "s1"))

    def test_an_append_after_the_tombstone_is_refused_and_writes_nothing(self, written: Backend) -> None:
        written.ledger.open("alice", record("acme", "alice"))

        with pytest.raises(SubjectErasedError) as refused:
            written.log.append(event("alice", "s9"))

        assert refused.value.field == "subject_id"
        assert written.log.list_events("s9") == []
        assert written.log.append(event("bob", "s9")).event.seq == 1

    def test_sessions_and_blobs_are_found_by_subject(self, written: Backend) -> None:
        subjects = written.subjects
        assert subjects.sessions("alice") == ["s1", "s2"]
        assert subjects.blob_hashes("alice") == {OWN, SHARED}
        assert subjects.blob_used_elsewhere(SHARED, "alice")
        assert not subjects.blob_used_elsewhere(OWN, "alice")

    def test_forget_removes_only_the_subjects_events(self, written: Backend) -> None:
        assert written.subjects.forget("alice") == 3

        log = written.log
        assert [e.subject_id for e in log.list_events("s1")] == ["bob"]
        assert log.list_events("s2") == []
        assert written.subjects.sessions("alice") == []
        assert written.subjects.blob_hashes("alice") == set()
        assert not written.subjects.blob_used_elsewhere(SHARED, "bob")  # only Bob points at it now
        assert written.subjects.forget("alice") == 0  # a repeat finds nothing

    def test_events_page_by_cursor_without_loss_or_repeat(self, written: Backend) -> None:
        seen, after = [], None
        while page := written.subjects.events("alice", after, 2):
            seen += [e.event_id for _, e in page]
            after = page[-1][0]
            if len(page) < 2:
                break

        everything = [e.event_id for _, e in written.subjects.events("alice", None, 100)]
        assert seen == everything and len(everything) == 3
        assert all(e.subject_id == "alice" for _, e in written.subjects.events("alice", None, 100))
