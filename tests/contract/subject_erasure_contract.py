"""The contracts of the erasure ports: ErasureLedger (with the event log's half of erasure: once a
subject's tombstone is written, its appends are refused), ErasedSubjects (the tombstones as
projection reads them) and SubjectLog. Each backend's module subclasses every contract and
provides `make(tenant)`: a log, its subject view and its ledger over one backing store, so a
second `make` of the same tenant is another process and one of another tenant shares the store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from agentmem.errors import NotFoundError, SubjectErasedError
from agentmem.model.events import BlobRef, EventDraft
from agentmem.ports.log import EventLog
from agentmem.ports.subjects import ErasureLedger, SubjectLog
from agentmem.subjects.identity import subject_hash
from agentmem.subjects.model import ErasureRecord, TierProgress

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


class _ErasureBackend:
    """The fixtures every erasure contract shares; no tests of its own."""

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


class ErasureLedgerContract(_ErasureBackend):
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

    def test_saving_progress_keeps_the_tombstone(self, backend: Backend) -> None:
        opened = backend.ledger.open("alice", record("acme", "alice"))

        backend.ledger.save(opened.finished("later"))

        assert backend.ledger.erased(["alice"]) == {"alice"}
        with pytest.raises(SubjectErasedError):
            backend.log.append(event("alice", "s1"))

    def test_an_unknown_erasure_is_not_found(self, backend: Backend) -> None:
        with pytest.raises(NotFoundError):
            backend.ledger.get("er_missing")

    def test_records_are_per_tenant(self, make: Factory) -> None:
        make("acme").ledger.open("alice", record("acme", "alice"))

        with pytest.raises(NotFoundError):
            make("other").ledger.get("er_1")

    def test_a_tombstone_refuses_appends_only_in_its_own_tenant(self, make: Factory) -> None:
        acme, other = make("acme"), make("other")
        acme.ledger.open("alice", record("acme", "alice"))

        assert other.log.append(event("alice", "s1")).created

    def test_an_append_after_the_tombstone_is_refused_and_writes_nothing(self, written: Backend) -> None:
        written.ledger.open("alice", record("acme", "alice"))

        with pytest.raises(SubjectErasedError) as refused:
            written.log.append(event("alice", "s9"))

        assert refused.value.field == "subject_id"
        assert written.log.list_events("s9") == []
        assert written.log.append(event("bob", "s9")).event.seq == 1


class ErasedSubjectsContract(_ErasureBackend):
    def test_only_the_subjects_with_a_tombstone_are_named(self, backend: Backend) -> None:
        backend.ledger.open("alice", record("acme", "alice"))

        assert backend.ledger.erased(["alice", "bob", "never-seen"]) == {"alice"}

    def test_asking_about_nobody_answers_nobody(self, backend: Backend) -> None:
        backend.ledger.open("alice", record("acme", "alice"))

        assert backend.ledger.erased([]) == set()

    def test_tombstones_are_per_tenant(self, make: Factory) -> None:
        acme, other = make("acme"), make("other")
        acme.ledger.open("alice", record("acme", "alice"))

        assert other.ledger.erased(["alice"]) == set()

    def test_another_process_sees_a_tombstone_as_soon_as_it_is_written(self, make: Factory) -> None:
        projector = make("acme").ledger
        assert projector.erased(["alice"]) == set()

        make("acme").ledger.open("alice", record("acme", "alice"))

        assert projector.erased(["alice"]) == {"alice"}

    def test_a_batch_larger_than_one_backend_read_is_answered_whole(self, backend: Backend) -> None:
        """A projector batch names up to hundreds of subjects: more than one BatchGetItem (100
        keys) or SQLite statement (500 parameters) takes."""
        subjects = [f"subject-{n:04d}" for n in range(1201)]
        erased = set(subjects[::40])
        for n, subject in enumerate(sorted(erased)):
            backend.ledger.open(subject, record("acme", subject, f"er_{n}"))

        assert backend.ledger.erased(subjects) == erased


class SubjectLogContract(_ErasureBackend):
    def test_sessions_are_found_by_subject_and_sorted(self, written: Backend) -> None:
        assert written.subjects.sessions("alice") == ["s1", "s2"]

    def test_blobs_are_found_by_subject(self, written: Backend) -> None:
        assert written.subjects.blob_hashes("alice") == {OWN, SHARED}

    def test_a_blob_is_used_elsewhere_only_when_another_subject_points_at_it(self, written: Backend) -> None:
        assert written.subjects.blob_used_elsewhere(SHARED, "alice")
        assert not written.subjects.blob_used_elsewhere(OWN, "alice")

    def test_forget_removes_only_the_subjects_events(self, written: Backend) -> None:
        assert written.subjects.forget("alice") == 3

        log = written.log
        assert [e.subject_id for e in log.list_events("s1")] == ["bob"]
        assert log.list_events("s2") == []
        assert [e.subject_id for e in log.list_events("s3")] == ["bob"]

    def test_after_forget_the_subject_has_no_sessions_or_blobs(self, written: Backend) -> None:
        written.subjects.forget("alice")

        assert written.subjects.sessions("alice") == []
        assert written.subjects.blob_hashes("alice") == set()
        assert not written.subjects.blob_used_elsewhere(SHARED, "bob")  # only Bob points at it now

    def test_after_forget_the_log_no_longer_knows_the_subject(self, written: Backend) -> None:
        written.subjects.forget("alice")

        assert not written.log.has_subject("alice")
        assert written.log.has_subject("bob")

    def test_forget_takes_the_subjects_idempotency_records_too(self, written: Backend) -> None:
        """Else a retried append would answer with an event that no longer exists."""
        written.subjects.forget("alice")

        again = written.log.append(event("alice", "s2", idem="k1"))

        assert again.created
        assert written.log.list_events("s2") == [again.event]

    def test_a_repeat_forget_finds_nothing(self, written: Backend) -> None:
        written.subjects.forget("alice")

        assert written.subjects.forget("alice") == 0

    def test_forget_leaves_other_tenants_alone(self, make: Factory) -> None:
        acme, other = make("acme"), make("other")
        acme.log.append(event("alice", "s1"))
        kept = other.log.append(event("alice", "s1")).event

        assert acme.subjects.forget("alice") == 1

        assert other.log.list_events("s1") == [kept]

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
