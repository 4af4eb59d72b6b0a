"""Ports of the episodic log: appending and reading a session's events, and tailing the whole log
in append order with a checkpoint (what the local projector worker and replay read)."""

from __future__ import annotations

from typing import Protocol

from agentmem.model.events import AppendOutcome, Event, EventDraft


class EventLog(Protocol):
    """Append-only episodic log, scoped to one tenant at construction.

    Adapters guarantee: seq is unique and gap-free per session under concurrent writers; an
    append returns only after the event is durable; an idempotency key maps to exactly one event.
    """

    def append(self, draft: EventDraft) -> AppendOutcome:
        """Store `draft` at the session's next seq, or return the event already stored under its
        idempotency key (`created=False`). Raises ConflictError when that key was used for a
        different request, BackendUnavailableError on throttling or outage."""
        ...

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
    ) -> list[Event]:
        """Events with seq > `after` in seq order, filtered, at most `limit`."""
        ...

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        """Events with seq < `before` (every event when None), newest first, at most `limit`:
        reading from the newest end costs the events read, never the session's length."""
        ...

    def last_seq(self, session_id: str) -> int:
        """The highest seq of the session, 0 when it has no events."""
        ...

    def has_subject(self, subject_id: str) -> bool:
        """Whether any session holds an event of `subject_id`: a subject is known from its first
        event, before any belief is projected from it. One indexed read, whatever the log's size."""
        ...


class LogTail(Protocol):
    """Reading the whole log in append order from a position: what the local projector worker
    and replay use where AWS has the DynamoDB stream."""

    def read_since(self, position: int, limit: int = 500) -> list[tuple[int, Event]]:
        """(position, event) pairs with position > `position`, in append order."""
        ...

    def head_position(self) -> int: ...


class CheckpointStore(Protocol):
    """Named positions in the log (per belief generation), so a restarted worker resumes where it
    stopped instead of projecting the whole log again."""

    def load(self, name: str) -> int:
        """The saved position, 0 when none was saved."""
        ...

    def save(self, name: str, position: int) -> None: ...
