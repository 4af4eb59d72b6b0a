"""The retention contracts: RetentionSweeper (expire raw events, and the blobs only they pointed
at, past the tenant's retention) and ObservationSnapshot (the observations a sweep keeps, so a
replay of what is left of the log still reproduces the beliefs: semantic.snapshot.seed).

Each adapter's test class provides `make(tenant)`: a RetentionBackend whose log, belief store,
blob store, snapshot and sweeper share one backing store (and one blob store across tenants, as
deployments do locally); the sweeper keeps RETENTION_DAYS and its clock stands at NOW. The
projector's part is played by hand: each fact of an event is added to the generation as the
observation the projector would make of it."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from agentmem.model.beliefs import Observation
from agentmem.model.events import BlobRef, Event, EventDraft
from agentmem.ports.blobs import BlobStore
from agentmem.ports.semantic import BeliefIndex, BeliefStore, ObservationSnapshot, RetentionSweeper
from agentmem.semantic.event_observations import order_key
from tests.contract.log_tail_contract import TailedLog

NOW = datetime(2026, 6, 1, tzinfo=UTC)
RETENTION_DAYS = 30
OLD = "2026-04-17T00:00:0{}.000Z"  # 45 days before NOW; the digit orders events within it
RECENT = "2026-05-30T00:00:00.000Z"  # 2 days before NOW

_ids = iter(range(10**9))
_lock = threading.Lock()


@dataclass
class RetentionBackend:
    log: TailedLog
    store: BeliefStore
    blobs: BlobStore
    snapshot: ObservationSnapshot
    sweeper: RetentionSweeper


Factory = Callable[[str], RetentionBackend]
Stated = tuple[int, Event, list[Observation]]
"""What `say` returns: the log position after the event, the event, its observations."""
History = dict[str, Stated]


def put_blob(blobs: BlobStore, data: bytes) -> BlobRef:
    sha = hashlib.sha256(data).hexdigest()
    uri = blobs.put(data, sha256=sha, media_type="text/plain")
    return BlobRef(uri=uri, bytes=len(data), sha256=sha, media_type="text/plain", preview="p")


def say(
    backend: RetentionBackend,
    created_at: str,
    session: str,
    *facts: tuple[str, str, str],
    subject: str = "priya",
    blob: BlobRef | None = None,
    index: BeliefIndex | None = None,
) -> Stated:
    """Append an event stating `facts` (key, member, value) and project them into `index` (the
    active generation by default). Returns its log position, the event and its observations."""
    with _lock:
        n = next(_ids)
    draft = EventDraft(
        event_id=f"ev_{n}", session_id=session, subject_id=subject, round=0, agent="a", kind="note",
        media_type="text/plain", content=None if blob else f"{subject} says {n}", blob=blob,
        idempotency_key=None, request_hash="h", created_at=created_at,
    )  # fmt: skip
    event = backend.log.append(draft).event
    observations = [
        Observation(
            subject_id=subject,
            key=key,
            member=member,
            text=f"{subject} {key} is {value}",
            value=value,
            order=order_key(event),
            event_id=event.event_id,
            session_id=session,
            seq=event.seq,
            stated_at=created_at,
        )
        for key, member, value in facts
    ]
    target = index or backend.store.active()
    for observation in observations:
        target.add_observation(observation)
    return backend.log.head_position(), event, observations


def kept(snapshot: ObservationSnapshot, subject_id: str | None = None, size: int = 500) -> list[Observation]:
    return [o for page in snapshot.pages(subject_id, size) for o in page]


class _RetentionFixtures:
    @pytest.fixture
    def make(self) -> Factory:
        raise NotImplementedError

    @pytest.fixture
    def backend(self, make: Factory) -> RetentionBackend:
        backend = make("acme")
        backend.store.ensure_ready()
        return backend


class RetentionSweeperContract(_RetentionFixtures):
    @pytest.fixture
    def history(self, backend: RetentionBackend) -> History:
        """Three old events in s1 (a blob of their own, a blob a recent event shares too), one
        recent event in s2; all projected."""
        own, shared = put_blob(backend.blobs, b"old statement"), put_blob(backend.blobs, b"factsheet")
        return {
            "old_1": say(backend, OLD.format(1), "s1", ("risk", "", "cautious")),
            "old_2": say(backend, OLD.format(2), "s1", ("goal", "", "house"), blob=own),
            "old_3": say(backend, OLD.format(3), "s1", blob=shared),
            "recent": say(backend, RECENT, "s2", ("risk", "", "bold"), blob=shared),
        }

    def test_expired_projected_events_go_and_are_counted(
        self, backend: RetentionBackend, history: History
    ) -> None:
        assert backend.sweeper.sweep(backend.log.head_position(), 1) == 3

        assert backend.log.list_events("s1") == []

    def test_events_within_the_retention_stay(self, backend: RetentionBackend, history: History) -> None:
        backend.sweeper.sweep(backend.log.head_position(), 1)

        assert backend.log.list_events("s2") == [history["recent"][1]]

    def test_expired_events_past_what_was_projected_stay(
        self, backend: RetentionBackend, history: History
    ) -> None:
        projected_up_to = history["old_1"][0]

        assert backend.sweeper.sweep(projected_up_to, 1) == 1

        assert backend.log.list_events("s1") == [history["old_2"][1], history["old_3"][1]]

    def test_the_observations_of_expired_events_are_kept(
        self, backend: RetentionBackend, history: History
    ) -> None:
        backend.sweeper.sweep(backend.log.head_position(), 1)

        assert kept(backend.snapshot) == history["old_1"][2] + history["old_2"][2]

    def test_the_observations_kept_are_those_of_the_generation_given(self, backend: RetentionBackend) -> None:
        """After a replay the worker sweeps for the new generation; the old one may be stale."""
        stale, fresh = backend.store.active(), backend.store.new_generation()
        _, _, (stated,) = say(backend, OLD.format(1), "s1", ("risk", "", "cautious"), index=stale)
        fresh.add_observation(stated.model_copy(update={"value": "balanced", "text": "priya is balanced"}))

        backend.sweeper.sweep(backend.log.head_position(), fresh.generation)

        assert [o.value for o in kept(backend.snapshot)] == ["balanced"]

    def test_a_blob_only_expired_events_pointed_at_goes(
        self, backend: RetentionBackend, history: History
    ) -> None:
        own = history["old_2"][1].blob
        assert own is not None and backend.blobs.exists(own.sha256)

        backend.sweeper.sweep(backend.log.head_position(), 1)

        assert not backend.blobs.exists(own.sha256)

    def test_a_blob_a_remaining_event_points_at_stays(
        self, backend: RetentionBackend, history: History
    ) -> None:
        backend.sweeper.sweep(backend.log.head_position(), 1)

        shared = history["recent"][1].blob
        assert shared is not None and backend.blobs.exists(shared.sha256)

    def test_a_blob_no_event_points_at_is_left_alone(
        self, backend: RetentionBackend, history: History
    ) -> None:
        """The composer offloads payloads into the same store; retention is not theirs to expire."""
        offload = put_blob(backend.blobs, b"a composed context, offloaded")

        backend.sweeper.sweep(backend.log.head_position(), 1)

        assert backend.blobs.exists(offload.sha256)

    def test_a_repeat_sweep_expires_nothing_and_keeps_nothing_twice(
        self, backend: RetentionBackend, history: History
    ) -> None:
        backend.sweeper.sweep(backend.log.head_position(), 1)
        before = kept(backend.snapshot)

        assert backend.sweeper.sweep(backend.log.head_position(), 1) == 0

        assert kept(backend.snapshot) == before

    def test_another_tenants_expired_events_stay(self, make: Factory, backend: RetentionBackend) -> None:
        other = make("globex")
        other.store.ensure_ready()
        _, theirs, _ = say(other, OLD.format(1), "s1", ("risk", "", "cautious"))
        say(backend, OLD.format(2), "s1", ("risk", "", "bold"))

        assert backend.sweeper.sweep(backend.log.head_position(), 1) == 1

        assert other.log.list_events("s1") == [theirs]
        assert kept(other.snapshot) == []

    def test_a_blob_another_tenants_event_points_at_stays(
        self, make: Factory, backend: RetentionBackend
    ) -> None:
        other = make("globex")
        shared = put_blob(backend.blobs, b"one upload, two tenants")
        say(other, RECENT, "s1", blob=shared)
        say(backend, OLD.format(1), "s1", blob=shared)

        backend.sweeper.sweep(backend.log.head_position(), 1)

        assert backend.blobs.exists(shared.sha256)


class ObservationSnapshotContract(_RetentionFixtures):
    @pytest.fixture
    def expected(self, backend: RetentionBackend) -> list[Observation]:
        """What a sweep keeps, in log order: Priya and Bob in two sessions, appended out of log
        order; one event states two facts, one a set of two members. Then a recent event."""
        stated = [
            say(backend, OLD.format(3), "s1", ("risk", "", "cautious"), ("goal", "", "house")),
            say(backend, OLD.format(1), "s2", ("pets", "cat", "cat"), ("pets", "dog", "dog")),
            say(backend, OLD.format(2), "s3", ("city", "", "Oslo"), subject="bob"),
            say(backend, OLD.format(4), "s1", ("goal", "", "boat")),
        ]
        say(backend, RECENT, "s1", ("goal", "", "baby"))
        backend.sweeper.sweep(backend.log.head_position(), 1)
        in_log_order = sorted(stated, key=lambda s: order_key(s[1]))
        return [observation for _, _, observations in in_log_order for observation in observations]

    def test_an_empty_snapshot_has_no_pages(self, backend: RetentionBackend) -> None:
        assert list(backend.snapshot.pages()) == []

    def test_kept_observations_read_back_as_they_were_stated(
        self, backend: RetentionBackend, expected: list[Observation]
    ) -> None:
        assert sorted(kept(backend.snapshot), key=repr) == sorted(expected, key=repr)

    def test_pages_come_in_log_order(self, backend: RetentionBackend, expected: list[Observation]) -> None:
        assert [o.order for o in kept(backend.snapshot)] == [o.order for o in expected]

    @pytest.mark.parametrize("size", [1, 2, 3])
    def test_pages_hold_size_at_a_time_without_loss_or_repeat(
        self, backend: RetentionBackend, expected: list[Observation], size: int
    ) -> None:
        pages = list(backend.snapshot.pages(size=size))

        assert all(len(page) == size for page in pages[:-1]) and 1 <= len(pages[-1]) <= size
        assert sorted((o for page in pages for o in page), key=repr) == sorted(expected, key=repr)

    def test_one_subjects_pages_hold_only_its_observations(
        self, backend: RetentionBackend, expected: list[Observation]
    ) -> None:
        assert kept(backend.snapshot, "bob", size=1) == [o for o in expected if o.subject_id == "bob"]
        assert kept(backend.snapshot, "nobody") == []

    def test_the_snapshot_is_per_tenant(
        self, make: Factory, backend: RetentionBackend, expected: list[Observation]
    ) -> None:
        assert kept(make("globex").snapshot) == []

    def test_erasing_a_subject_from_the_belief_store_removes_what_was_kept_of_it(
        self, backend: RetentionBackend, expected: list[Observation]
    ) -> None:
        """Replay reads the snapshot: what the erasure's beliefs tier leaves here would come back."""
        backend.store.forget_subject("priya")

        assert kept(backend.snapshot, "priya") == []
        assert kept(backend.snapshot) == [o for o in expected if o.subject_id == "bob"]
