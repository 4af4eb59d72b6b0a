"""One batch of a replay run in parallel (the AWS replay's Distributed Map): events read from a log
export, in no particular order, projected into one generation with the projector's own code.

Batches run side by side and in any order. Projection is idempotent by the belief seq rule, and an
event older than what a chain has applied refolds the key in log order, so the generation ends the
same whatever order the batches ran in. Work already done is skipped before any extraction: an
event whose history passages the generation holds was projected whole (passages are written after
the beliefs of their batch), so a re-run or a redriven batch costs index reads, not model calls."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from agentmem.model.events import Event
from agentmem.ports.semantic import BeliefIndex, PassageIndex
from agentmem.semantic.event_observations import order_key
from agentmem.semantic.health import PROBE_SUBJECT, seed_probe
from agentmem.semantic.passages import passages_of
from agentmem.semantic.service import SemanticService

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchResult:
    events: int  # events in the batch
    skipped: int  # already projected into the generation: nothing was extracted for them
    beliefs_changed: int


def prepared(index: BeliefIndex) -> bool:
    """Whether a replay prepared `index` (it seeds the health probe first): a generation that was
    never created reads as empty, and writing into it would let the engine guess its mapping."""
    return index.vector_coverage(PROBE_SUBJECT)[1] > 0


def projected_already(passages: PassageIndex | None, events: Sequence[Event]) -> set[str]:
    """Ids of the events whose every passage `passages` holds. An event with no passage (no text)
    is never counted done: projecting it again is cheap and changes nothing."""
    if passages is None:
        return set()
    wanted = {e.event_id: [p.passage_id for p in passages_of(e)] for e in events}
    missing: set[str] = set()
    for subject in sorted({e.subject_id for e in events}):
        ids = [pid for e in events if e.subject_id == subject for pid in wanted[e.event_id]]
        missing |= passages.missing(subject, ids) if ids else set()
    return {eid for eid, pids in wanted.items() if pids and not missing.intersection(pids)}


def project_batch(semantic: SemanticService, generation: int, events: Sequence[Event]) -> BatchResult:
    """Project `events` into `generation` (never the alias: readers see it only once activated),
    oldest first so most keys take the incremental path."""
    index = semantic.store.generation(generation)
    seed_probe(semantic, index)
    projector = semantic.projector(index)
    passages = semantic.passages.generation(generation) if semantic.passages is not None else None
    done = projected_already(passages, events)
    todo = sorted((e for e in events if e.event_id not in done), key=order_key)
    changed = len(projector.project_many(todo)) if todo else 0
    logger.info(
        "replay batch projected",
        extra={"generation": generation, "events": len(events), "skipped": len(done), "changed": changed},
    )
    return BatchResult(events=len(events), skipped=len(done), beliefs_changed=changed)
