"""Rebuild the semantic tier from the log into a new generation, then switch readers to it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from agentmem.ports.log import CheckpointStore, LogTail
from agentmem.ports.semantic import ObservationSnapshot
from agentmem.semantic.passage_vectors import embed_all_pending
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
    on_phase: Callable[[str], None] | None = None,
    snapshot: ObservationSnapshot | None = None,
) -> ReplayResult:
    """Readers keep the old generation until the new one holds the whole log; `activate` is atomic.

    With `subject_id`, only that subject is rebuilt from the log and the others are copied from
    the active generation. The copy is exact: the old generation's checkpoint is read before the
    copy (the worker saves it only after projecting, so the copy holds at least every event up to
    it), and the new generation then catches up on every subject from that watermark before the
    switch. Whatever was projected into the old generation meanwhile is projected again, which
    changes nothing (projection is idempotent); nothing acknowledged is left behind.

    `snapshot` holds the observations of events retention has expired: they are folded in before
    the log and again after it, for any the sweep moved there while the log was being read.

    `on_phase` is called with "copied" (single subject only), "rebuilt" and "caught_up", the
    last just before readers switch: tests interleave writers and the worker there."""
    phase = on_phase or (lambda _: None)
    semantic.store.ensure_ready()  # on a new deployment, generation 1 is the previous one
    previous = semantic.store.active().generation
    fresh = semantic.store.new_generation()
    if subject_id is None:
        seed(snapshot, semantic, fresh)
        read = drain(tail, semantic, checkpoints, fresh)
        seed(snapshot, semantic, fresh)
        phase("rebuilt")
    else:
        if copy_other_subjects is None:
            raise ValueError("a single-subject replay needs a way to copy the other subjects")
        watermark = checkpoints.load(checkpoint_name(previous))
        copy_other_subjects(previous, fresh.generation, subject_id)
        if semantic.passages is not None:
            semantic.passages.copy_other_subjects(previous, fresh.generation, subject_id)
        checkpoints.save(checkpoint_name(fresh.generation), watermark)
        phase("copied")
        seed(snapshot, semantic, fresh, only_subject=subject_id)
        read = drain(tail, semantic, checkpoints, fresh, only_subject=subject_id)
        seed(snapshot, semantic, fresh, only_subject=subject_id)
        phase("rebuilt")
        read += drain(tail, semantic, checkpoints, fresh)  # every subject, from the copy's watermark
    if semantic.passages is not None:
        # The vectors too, before readers switch: the new generation is whole, as the old one was.
        embed_all_pending(
            semantic.passages.generation(fresh.generation), semantic.embedder, cache=semantic.vector_cache
        )
    phase("caught_up")
    # Passages first: the beliefs' switch is what a reader takes for the new generation, and
    # either generation's passages are the whole log's by now.
    if semantic.passages is not None:
        semantic.passages.activate(fresh.generation)
    semantic.store.activate(fresh.generation)
    # Events appended since the last read; after this the worker continues from the same checkpoint.
    read += drain(tail, semantic, checkpoints, fresh)
    logger.info(
        "replay activated", extra={"generation": fresh.generation, "events": read, "subject_id": subject_id}
    )
    return ReplayResult(generation=fresh.generation, previous_generation=previous, events_read=read)
