"""Erase a subject from every tier: accept (tombstone first), then run the tiers in order.

The tombstone comes first and stays: from then on, appends about the subject are refused and
every projection, worker round and replay skips it, so nothing the tiers remove can come back.
Tiers derived from the log go next (beliefs, review drafts, conversation memory), then blobs the
subject alone points at, then the subject's events, and last the caches and storage compaction.
The events are deleted only once every tier before them succeeded: those tiers find the
subject's sessions through its events, so a failed tier can still be finished by a repeat. Every
tier is idempotent, so a repeat (or a queue redelivery) simply runs them all again."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence

from agentmem.episodic.service import utc_now_iso
from agentmem.errors import AgentMemError, InvalidInputError
from agentmem.ports.blobs import BlobStore
from agentmem.ports.subjects import ErasureLedger, ErasureScheduler, SubjectLog
from agentmem.subjects.identity import subject_hash
from agentmem.subjects.model import ErasureRecord, Footprint, TierProgress

logger = logging.getLogger(__name__)

Tier = tuple[str, Callable[[Footprint], int]]
"""A tier's name and what erases the subject from it (returns how many items it removed)."""

EVENTS_TIER, BLOBS_TIER = "events", "blobs"


def new_erasure_id() -> str:
    return f"er_{uuid.uuid4().hex}"


class ErasureService:
    def __init__(
        self,
        tenant_id: str,
        ledger: ErasureLedger,
        log: SubjectLog,
        blobs: BlobStore,
        *,
        derived: Sequence[Tier] = (),
        cleanup: Sequence[Tier] = (),
        scheduler: ErasureScheduler | None = None,
        clock: Callable[[], str] = utc_now_iso,
        id_factory: Callable[[], str] = new_erasure_id,
    ) -> None:
        self._tenant = tenant_id
        self._ledger = ledger
        self._log = log
        self._blobs = blobs
        self._derived = [*derived, (BLOBS_TIER, self._forget_blobs)]
        self._cleanup = list(cleanup)
        self._scheduler = scheduler
        self._clock = clock
        self._id_factory = id_factory

    @property
    def tier_names(self) -> list[str]:
        return [name for name, _ in (*self._derived, (EVENTS_TIER, None), *self._cleanup)]

    def erase(self, subject_id: str) -> ErasureRecord:
        """Accept the erasure and hand it to the scheduler (or run it here, when there is none).
        A repeat for the same subject returns the same erasure and runs it again."""
        now = self._clock()
        pending = {name: TierProgress() for name in self.tier_names}
        record = self._ledger.open(
            subject_id,
            ErasureRecord(
                erasure_id=self._id_factory(),
                subject_hash=subject_hash(self._tenant, subject_id),
                state="running",
                requested_at=now,
                updated_at=now,
                tiers=pending,
            ),
        )
        logger.info("erasure accepted", extra={"erasure_id": record.erasure_id, "runs": record.runs})
        if self._scheduler is None:
            return self.run(record.erasure_id, subject_id)
        self._scheduler.schedule(record.erasure_id, subject_id)
        return self._ledger.get(record.erasure_id)

    def status(self, erasure_id: str) -> ErasureRecord:
        return self._ledger.get(erasure_id)

    def run(self, erasure_id: str, subject_id: str) -> ErasureRecord:
        """Run every tier once, saving progress after each. Raises nothing for a failed tier: the
        record says which failed, and why, by error code."""
        record = self._ledger.get(erasure_id)
        if record.subject_hash != subject_hash(self._tenant, subject_id):
            raise InvalidInputError(f"erasure {erasure_id} is not about this subject", field="subject_id")
        record = record.model_copy(
            update={
                "state": "running",
                "runs": record.runs + 1,
                "tiers": {name: record.tiers.get(name, TierProgress()) for name in self.tier_names},
            }
        )
        footprint = Footprint(subject_id, tuple(self._log.sessions(subject_id)))
        for name, erase in self._derived:
            record = self._run_tier(record, name, erase, footprint)
        if all(record.tiers[name].status == "done" for name, _ in self._derived):
            record = self._run_tier(record, EVENTS_TIER, lambda _: self._log.forget(subject_id), footprint)
        else:
            waiting = TierProgress(removed=record.tiers[EVENTS_TIER].removed, note="waits_for_earlier_tiers")
            record = record.with_tier(EVENTS_TIER, waiting, self._clock())
        for name, erase in self._cleanup:
            record = self._run_tier(record, name, erase, footprint)
        record = record.finished(self._clock())
        self._ledger.save(record)
        logger.info(
            "erasure ran", extra={"erasure_id": erasure_id, "state": record.state, "runs": record.runs}
        )
        return record

    def _run_tier(
        self, record: ErasureRecord, name: str, erase: Callable[[Footprint], int], footprint: Footprint
    ) -> ErasureRecord:
        before = record.tiers[name].removed
        try:
            removed = erase(footprint)
        except AgentMemError as exc:
            # The code only: a message may quote what the tier was removing.
            logger.warning(
                "erasure tier failed", extra={"erasure_id": record.erasure_id, "tier": name, "code": exc.code}
            )
            progress = TierProgress(status="failed", removed=before, note=exc.code)
        except Exception:
            logger.exception("erasure tier failed", extra={"erasure_id": record.erasure_id, "tier": name})
            progress = TierProgress(status="failed", removed=before, note="internal_error")
        else:
            progress = TierProgress(status="done", removed=before + removed)
        record = record.with_tier(name, progress, self._clock())
        self._ledger.save(record)
        return record

    def _forget_blobs(self, footprint: Footprint) -> int:
        """Blobs are shared by content hash, across subjects: one goes only when no event of
        anyone else points at it. (An append racing this puts its blob back: EpisodicService.)"""
        removed = 0
        for sha256 in sorted(self._log.blob_hashes(footprint.subject_id)):
            if not self._log.blob_used_elsewhere(sha256, footprint.subject_id):
                removed += int(self._blobs.delete(sha256))
        return removed
