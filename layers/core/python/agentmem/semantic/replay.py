"""Rebuild the semantic tier from the log into a new generation, then switch readers to it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from agentmem.ports import CheckpointStore, LogTail
from agentmem.semantic.ports import ObservationSnapshot
from agentmem.semantic.service import SemanticService
from agentmem.semantic.snapshot import seed
from agentmem.semantic.worker import checkpoint_name, drain

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplayResult:
    generation: int
    previous_generation: int
    events_read: int


def replay(
    tail: LogTail,
    semantic: SemanticService,
    checkpoints: CheckpointStore,
    *,
    subject_id: str | None = None,
    copy_other_subjects: Callable[[int, int, str], None] | None = None,
    snapshot: ObservationSnapshot | None = None,
) -> ReplayResult:
    """Readers keep the old generation until the new one holds the whole log; `activate` is atomic.

    With `subject_id`, only that subject is rebuilt from the log: the others are copied from the
    active generation, and the new generation resumes from the old one's checkpoint, so events
    the old one had not reached yet are projected after the switch (projection is idempotent).

    `snapshot` holds the observations of events retention has expired: they are folded in before
    the log and again after it, for any the sweep moved there while the log was being read."""
    semantic.store.ensure_ready()  # on a new deployment, generation 1 is the previous one
    previous = semantic.store.active().generation
    fresh = semantic.store.new_generation()
    if subject_id is not None:
        if copy_other_subjects is None:
            raise ValueError("a single-subject replay needs a way to copy the other subjects")
        copy_other_subjects(previous, fresh.generation, subject_id)
        seed(snapshot, semantic, fresh, only_subject=subject_id)
        read = drain(tail, semantic, checkpoints, fresh, only_subject=subject_id)
        seed(snapshot, semantic, fresh, only_subject=subject_id)
        checkpoints.save(checkpoint_name(fresh.generation), checkpoints.load(checkpoint_name(previous)))
        semantic.store.activate(fresh.generation)
        return ReplayResult(generation=fresh.generation, previous_generation=previous, events_read=read)
    seed(snapshot, semantic, fresh)
    read = drain(tail, semantic, checkpoints, fresh)
    seed(snapshot, semantic, fresh)
    semantic.store.activate(fresh.generation)
    read += drain(tail, semantic, checkpoints, fresh)  # events appended while it was building
    logger.info("replay activated", extra={"generation": fresh.generation, "events": read})
    return ReplayResult(generation=fresh.generation, previous_generation=previous, events_read=read)
