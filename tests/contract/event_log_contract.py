"""The EventLog contract. Every adapter's test module subclasses EventLogContract and provides
`make_log(tenant_id)`, a factory of logs that share one backing store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentmem.model.events import BlobRef, EventDraft
from agentmem.ports.log import EventLog

LogFactory = Callable[[str], EventLog]

_counter = iter(range(10**9))
_counter_lock = threading.Lock()


def draft(
    session_id: str = "s1",
    *,
    idem: str | None = None,
    agent: str = "intake",
    round: int = 0,
    content: object = "hello",
    blob: BlobRef | None = None,
    request_hash: str = "h",
    subject_id: str = "priya",
) -> EventDraft:
    with _counter_lock:
        n = next(_counter)
    return EventDraft(
        event_id=f"ev_{n}",
        session_id=session_id,
        subject_id=subject_id,
        round=round,
        agent=agent,
        kind="note",
        media_type="text/plain",
        content=None if blob else content,
        blob=blob,  # type: ignore[arg-type]
        idempotency_key=idem,
        request_hash=request_hash,
        created_at="2026-11-30T00:00:00.000Z",
    )


class EventLogContract:
    @pytest.fixture
    def make_log(self) -> LogFactory:
        raise NotImplementedError

    @pytest.fixture
    def log(self, make_log: LogFactory) -> EventLog:
        return make_log("acme")

    def test_first_append_gets_seq_1_and_later_ones_count_up(self, log: EventLog) -> None:
        seqs = [log.append(draft()).event.seq for _ in range(3)]
        assert seqs == [1, 2, 3]
        assert log.last_seq("s1") == 3

    def test_sessions_have_independent_sequences(self, log: EventLog) -> None:
        log.append(draft("a"))
        log.append(draft("a"))
        assert log.append(draft("b")).event.seq == 1
        assert log.last_seq("missing") == 0

    def test_stored_event_round_trips_every_field(self, log: EventLog) -> None:
        sent = draft(content={"rows": [1, 2], "note": "naïve ✓"}, idem="k1", round=4, agent="planner")
        outcome = log.append(sent)
        assert outcome.created is True
        (read,) = log.list_events("s1")
        assert read == outcome.event
        assert read.content == {"rows": [1, 2], "note": "naïve ✓"}
        assert (read.event_id, read.round, read.agent, read.idempotency_key) == (
            sent.event_id,
            4,
            "planner",
            "k1",
        )

    def test_blob_pointer_is_kept_in_place_of_content(self, log: EventLog) -> None:
        ref = BlobRef(uri="file:///x", bytes=40000, sha256="ab" * 32, media_type="text/csv", preview="a,b")
        log.append(draft(blob=ref))
        (read,) = log.list_events("s1")
        assert read.blob == ref
        assert read.content is None
        assert read.stored == "blob"

    def test_retry_with_same_idempotency_key_returns_the_stored_event_and_writes_nothing(
        self, log: EventLog
    ) -> None:
        first = log.append(draft(idem="retry-1", request_hash="same"))
        again = log.append(draft(idem="retry-1", request_hash="same"))
        assert again.created is False
        assert again.event == first.event
        assert again.request_hash == "same"
        assert log.last_seq("s1") == 1
        assert len(log.list_events("s1")) == 1

    def test_reused_key_reports_the_original_request_hash(self, log: EventLog) -> None:
        log.append(draft(idem="k", request_hash="original"))
        again = log.append(draft(idem="k", request_hash="different"))
        assert again.created is False
        assert again.request_hash == "original"

    def test_idempotency_keys_are_scoped_to_the_session(self, log: EventLog) -> None:
        log.append(draft("a", idem="k"))
        other = log.append(draft("b", idem="k"))
        assert other.created is True

    def test_list_pages_by_seq_and_filters_by_agent_and_round(self, log: EventLog) -> None:
        for i in range(6):
            log.append(draft(agent="intake" if i % 2 == 0 else "planner", round=i // 2))
        assert [e.seq for e in log.list_events("s1", after=2, limit=2)] == [3, 4]
        assert [e.seq for e in log.list_events("s1", agent="planner")] == [2, 4, 6]
        assert [e.seq for e in log.list_events("s1", round=1)] == [3, 4]
        assert [e.seq for e in log.list_events("s1", agent="planner", round=2, after=0, limit=5)] == [6]
        assert log.list_events("s1", after=6) == []

    def test_recent_events_page_backwards_from_the_newest(self, log: EventLog) -> None:
        for _ in range(7):
            log.append(draft())
        log.append(draft("other"))
        assert [e.seq for e in log.recent_events("s1", limit=3)] == [7, 6, 5]
        assert [e.seq for e in log.recent_events("s1", before=5, limit=3)] == [4, 3, 2]
        assert [e.seq for e in log.recent_events("s1", before=3, limit=10)] == [2, 1]
        assert log.recent_events("s1", before=1) == []
        assert log.recent_events("s1", limit=0) == []
        assert log.recent_events("missing") == []
        assert log.recent_events("s1", limit=1) == log.list_events("s1", after=6)

    def test_filtered_list_fills_its_limit_past_non_matching_rows(self, log: EventLog) -> None:
        for i in range(30):
            log.append(draft(agent="rare" if i % 10 == 9 else "common"))
        assert [e.seq for e in log.list_events("s1", agent="rare", limit=2)] == [10, 20]

    def test_tenants_never_see_each_others_events(self, make_log: LogFactory) -> None:
        acme, globex = make_log("acme"), make_log("globex")
        acme.append(draft("shared"))
        acme.append(draft("shared"))
        assert globex.list_events("shared") == []
        assert globex.append(draft("shared")).event.seq == 1

    def test_a_subject_is_known_from_its_first_event_in_any_session(self, log: EventLog) -> None:
        assert log.has_subject("priya") is False
        log.append(draft("a"))
        assert log.has_subject("priya") is True
        assert log.has_subject("sam") is False

    def test_every_subject_of_a_shared_session_is_known(self, log: EventLog) -> None:
        # A session whose events change subject: each subject is known, not only the first.
        for subject in ("priya", "sam", "priya", "lee"):
            log.append(draft("shared", subject_id=subject))
        assert [log.has_subject(s) for s in ("priya", "sam", "lee", "kim")] == [True, True, True, False]

    def test_a_subject_is_known_only_to_its_tenant(self, make_log: LogFactory) -> None:
        make_log("acme").append(draft("a"))
        assert make_log("globex").has_subject("priya") is False

    @pytest.mark.slow
    def test_concurrent_writers_get_unique_gap_free_seqs(self, log: EventLog) -> None:
        """8 threads x 200 appends to one session give exactly seq 1..1600."""
        writers, per_writer = 8, 200

        def write_many(_: int) -> list[int]:
            return [log.append(draft("hot")).event.seq for _ in range(per_writer)]

        with ThreadPoolExecutor(max_workers=writers) as pool:
            seqs = [s for batch in pool.map(write_many, range(writers)) for s in batch]
        assert sorted(seqs) == list(range(1, writers * per_writer + 1))
        stored = [e.seq for e in log.list_events("hot", limit=5000)]
        assert stored == list(range(1, writers * per_writer + 1))
