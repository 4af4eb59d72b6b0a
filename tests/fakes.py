"""In-memory fakes of the ports, for tests that need a port's behaviour but not its backend.

Each one passes the same contract suite as the real adapters (tests/contract/test_fakes.py), so a
unit test on a fake tests what production runs. Stores are shared through a backing object, as a
database file is shared, so one backing store serves several tenants and outlives any adapter."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from agentmem.model.events import AppendOutcome, Event, EventDraft


@dataclass
class LogStore:
    """What a database holds for the log: every event in append order, with its request hash."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    rows: list[tuple[str, Event, str]] = field(default_factory=list)  # (tenant, event, request hash)


class InMemoryEventLog:
    """EventLog and LogTail of one tenant over a LogStore. A row's position is its index + 1: the
    append order across tenants, as SQLite's autoincrement position is."""

    def __init__(self, store: LogStore | None = None, tenant_id: str = "acme") -> None:
        self._store = store or LogStore()
        self._tenant = tenant_id

    def _session(self, session_id: str) -> list[tuple[Event, str]]:
        return [(e, h) for t, e, h in self._store.rows if t == self._tenant and e.session_id == session_id]

    def append(self, draft: EventDraft) -> AppendOutcome:
        with self._store.lock:
            session = self._session(draft.session_id)
            if draft.idempotency_key is not None:
                for event, request_hash in session:
                    if event.idempotency_key == draft.idempotency_key:
                        return AppendOutcome(event=event, created=False, request_hash=request_hash)
            event = Event.from_draft(draft, seq=len(session) + 1)
            self._store.rows.append((self._tenant, event, draft.request_hash))
        return AppendOutcome(event=event, created=True, request_hash=draft.request_hash)

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
    ) -> list[Event]:
        with self._store.lock:
            events = [e for e, _ in self._session(session_id)]
        matching = [
            e
            for e in events
            if e.seq > after and (agent is None or e.agent == agent) and (round is None or e.round == round)
        ]
        return matching[: max(limit, 0)]

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        with self._store.lock:
            events = [e for e, _ in self._session(session_id)]
        older = [e for e in reversed(events) if before is None or e.seq < before]
        return older[: max(limit, 0)]

    def last_seq(self, session_id: str) -> int:
        with self._store.lock:
            return len(self._session(session_id))

    def has_subject(self, subject_id: str) -> bool:
        with self._store.lock:
            return any(t == self._tenant and e.subject_id == subject_id for t, e, _ in self._store.rows)

    def read_since(self, position: int, limit: int = 500) -> list[tuple[int, Event]]:
        with self._store.lock:
            rows = list(enumerate(self._store.rows, start=1))
        mine = [(p, e) for p, (t, e, _) in rows if t == self._tenant and p > position]
        return mine[: max(limit, 0)]

    def head_position(self) -> int:
        with self._store.lock:
            positions = [p for p, (t, _, _) in enumerate(self._store.rows, start=1) if t == self._tenant]
        return positions[-1] if positions else 0


@dataclass
class CheckpointData:
    positions: dict[tuple[str, str], int] = field(default_factory=dict)  # (tenant, name) -> position


class InMemoryCheckpoints:
    """CheckpointStore of one tenant over a CheckpointData."""

    def __init__(self, data: CheckpointData | None = None, tenant_id: str = "acme") -> None:
        self._data = data or CheckpointData()
        self._tenant = tenant_id

    def load(self, name: str) -> int:
        return self._data.positions.get((self._tenant, name), 0)

    def save(self, name: str, position: int) -> None:
        self._data.positions[(self._tenant, name)] = position
