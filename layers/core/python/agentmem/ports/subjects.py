"""Ports of subject erasure: the ledger of erasures (with the tombstones every writer checks), and
what the log answers about one subject. Each backend implements both."""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from agentmem.model.events import Event
from agentmem.subjects.model import ErasureRecord


class ErasureLedger(Protocol):
    """Erasure records by id, and one tombstone per erased subject, named by its keyed hash."""

    def open(self, subject_id: str, record: ErasureRecord) -> ErasureRecord:
        """Write the subject's tombstone and `record` in one atomic write, and return `record`;
        when the subject already has a tombstone, write nothing and return its erasure's record.
        Once this returns, every append about the subject is refused (SubjectErasedError)."""
        ...

    def get(self, erasure_id: str) -> ErasureRecord:
        """NotFoundError when no erasure has this id."""
        ...

    def save(self, record: ErasureRecord) -> None:
        """Replace the stored record of `record.erasure_id` (progress only; the tombstone stays)."""
        ...

    def erased(self, subject_ids: Collection[str]) -> set[str]:
        """Those of `subject_ids` that have a tombstone: what projection and replay skip. A
        strongly consistent read, so an erasure is seen by every check that starts after it."""
        ...


class SubjectLog(Protocol):
    """The log, read and pruned by subject: what erasure and export need beyond the EventLog."""

    def sessions(self, subject_id: str) -> list[str]:
        """Every session holding at least one of the subject's events, sorted."""
        ...

    def blob_hashes(self, subject_id: str) -> set[str]:
        """sha256 of every blob the subject's events point at."""
        ...

    def blob_used_elsewhere(self, sha256: str, subject_id: str) -> bool:
        """Whether an event of any other subject (or tenant sharing the store) points at the blob."""
        ...

    def forget(self, subject_id: str) -> int:
        """Delete the subject's events and every log item kept for them (idempotency records,
        indexes); returns how many events went. Every other writer's items are left alone."""
        ...

    def events(self, subject_id: str, after: str | None, limit: int) -> list[tuple[str, Event]]:
        """Up to `limit` of the subject's events after the cursor `after` (None: from the start),
        each with the opaque cursor that resumes right after it. Fewer than `limit`: the end."""
        ...


class ErasureScheduler(Protocol):
    """Runs an accepted erasure: inline locally, through a queue on AWS."""

    def schedule(self, erasure_id: str, subject_id: str) -> None: ...
