"""Retention on the local backend: the worker's sweep expires raw events and the blobs only they
pointed at; the beliefs distilled from them survive, and a replay afterwards reproduces them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.local.sqlite_retention import SqliteObservationSnapshot, SqliteRetention, iso
from agentmem.entrypoints.cli import local_worker
from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.model.beliefs import Belief
from agentmem.model.events import AppendEventRequest, Event
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import drain
from agentmem.settings import Settings
from agentmem.wiring import Services

NOW = datetime(2026, 6, 1, tzinfo=UTC)
OLD = iso(NOW - timedelta(days=45))
RECENT = iso(NOW - timedelta(days=2))
SHARED = "The quarterly fund factsheet, quoted in full. " * 12
OWN = "Priya's old bank statement. " * 20


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", inline_max_bytes=256, retention_days=30)


def writer(services: Services, created_at: str) -> EpisodicService:
    limits = EpisodicLimits(inline_max_bytes=256, max_request_bytes=1 << 20)
    return EpisodicService(services.event_log, services.blobs, limits, clock=lambda: created_at)


def say(episodic: EpisodicService, session: str, content: str, *facts: tuple[str, str, str]) -> Event:
    request = AppendEventRequest(
        subject_id="priya", round=0, agent="intake", kind="note", content=content,
        facts=[{"key": k, "text": t, "value": v} for k, t, v in facts] or None,  # type: ignore[misc]
    )  # fmt: skip
    return episodic.append(session, request).event


def log_of(services: Services) -> SqliteEventLog:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    return log


def sweeper(services: Services) -> SqliteRetention:
    return SqliteRetention(
        log_of(services).database, "local", services.blobs, retention_days=30, now=lambda: NOW
    )


def beliefs(services: Services) -> list[tuple[Belief, list[Belief]]]:
    current = services.semantic.current("priya")
    return [(b, services.semantic.belief("priya", b.key, history=True).history or []) for b in current]


@pytest.fixture
def history(services: Services) -> dict[str, Event]:
    """Priya's risk tolerance changed twice, 45 days ago and 2 days ago; goals from both times;
    an old blob of her own, and a blob an old and a recent event share. All projected."""
    old, recent = writer(services, OLD), writer(services, RECENT)
    events = {
        "risk_1": say(old, "s1", "cautious", ("risk_tolerance", "Priya is cautious.", "cautious")),
        "goal_1": say(old, "s1", "house", ("goal", "Priya saves for a house.", "house")),
        "own_blob": say(old, "s1", OWN),
        "old_shared": say(old, "s1", SHARED),
        "risk_2": say(old, "s1", "balanced", ("risk_tolerance", "Priya is balanced now.", "balanced")),
        "risk_3": say(recent, "s2", "bold", ("risk_tolerance", "Priya wants aggressive.", "aggressive")),
        "goal_2": say(recent, "s2", "baby", ("goal", "Priya plans for a baby.", "baby")),
        "new_shared": say(recent, "s2", SHARED),
    }  # fmt: skip
    # Projected without a sweep: the tests decide when the sweep runs, and at what time.
    checkpoints = SqliteCheckpoints(log_of(services).database, "local")
    drain(log_of(services), services.semantic, checkpoints, services.semantic.store.active())
    return events


def projected(services: Services) -> int:
    return SqliteCheckpoints(log_of(services).database, "local").load("projector-g1")


def test_the_sweep_expires_old_events_and_blobs_only_they_used(
    services: Services, history: dict[str, Event]
) -> None:
    before = beliefs(services)

    expired = sweeper(services).sweep(projected(services), 1)

    assert expired == 5
    assert [e.event_id for e in services.event_log.list_events("s1")] == []
    assert [e.event_id for e in services.event_log.list_events("s2")] == [
        history[k].event_id for k in ("risk_3", "goal_2", "new_shared")
    ]
    own, shared = history["own_blob"].blob, history["old_shared"].blob
    assert own is not None and shared is not None
    assert not services.blobs.exists(own.sha256)
    assert services.blobs.exists(shared.sha256)  # a recent event still points at it
    assert beliefs(services) == before  # beliefs distilled from expired events survive


def test_a_replay_after_expiry_reproduces_the_current_beliefs(
    services: Services, history: dict[str, Event]
) -> None:
    before = beliefs(services)
    sweeper(services).sweep(projected(services), 1)

    log = log_of(services)
    snapshot = SqliteObservationSnapshot(log_of(services).database, "local")
    result = replay(log, services.semantic, SqliteCheckpoints(log.database, "local"), snapshot=snapshot)

    assert result.generation == 2
    assert beliefs(services) == before
    assert [b.value for b, _ in before] == ["baby", "house", "aggressive"]
    assert [len(chain) for _, chain in before] == [2, 2, 3]


def test_without_the_snapshot_the_same_replay_would_lose_them(
    services: Services, history: dict[str, Event]
) -> None:
    """The control for the test above: the kept observations are what carries the beliefs."""
    sweeper(services).sweep(projected(services), 1)
    log = log_of(services)

    replay(log, services.semantic, SqliteCheckpoints(log.database, "local"))

    assert [b.value for b in services.semantic.current("priya")] == ["baby", "aggressive"]


def test_events_not_yet_projected_are_never_expired(services: Services, history: dict[str, Event]) -> None:
    assert sweeper(services).sweep(0, 1) == 0
    assert len(services.event_log.list_events("s1")) == 5


def test_the_worker_sweeps_after_it_projects(settings: Settings, services: Services) -> None:
    say(
        writer(services, iso(datetime.now(UTC) - timedelta(days=31))),
        "s1",
        "old",
        ("goal", "Priya saves.", "s"),
    )
    say(writer(services, iso(datetime.now(UTC))), "s1", "fresh")

    local_worker(services).run_once()

    assert [e.content for e in services.event_log.list_events("s1")] == ["fresh"]
    assert [b.value for b in services.semantic.current("priya")] == ["s"]


def test_an_erasure_also_removes_what_retention_kept(services: Services, history: dict[str, Event]) -> None:
    sweeper(services).sweep(projected(services), 1)
    snapshot = SqliteObservationSnapshot(log_of(services).database, "local")
    assert [o.subject_id for page in snapshot.pages() for o in page] == ["priya"] * 3

    services.erasure.erase("priya")

    assert list(snapshot.pages()) == []


def test_history_passages_of_expired_events_survive_the_sweep(
    services: Services, history: dict[str, Event]
) -> None:
    """Passages are derived like beliefs: the worker indexes every event's passage before its
    sweep can expire the event, and the sweep leaves the passage (and its vector) in place."""
    passages = services.semantic.passages
    assert passages is not None
    local_worker(services).settle()  # indexes the passages; its sweep runs at today's date

    assert services.event_log.list_events("s1") == []  # expired by the worker's own sweep
    hits = passages.active().keyword_search("priya", "bank statement", 5)
    assert [h.passage.event_id for h in hits] == [history["own_blob"].event_id]
    assert passages.active().pending_count("priya") == 0  # its vector is in too
