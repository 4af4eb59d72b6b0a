"""Rebuild the semantic tier from the log into a new generation, then switch readers to it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agentmem.ports import CheckpointStore, LogTail
from agentmem.semantic.service import SemanticService
from agentmem.semantic.worker import drain

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplayResult:
    generation: int
    previous_generation: int
    events_read: int


def replay(tail: LogTail, semantic: SemanticService, checkpoints: CheckpointStore) -> ReplayResult:
    """Readers keep the old generation until the new one holds the whole log; `activate` is atomic."""
    previous = semantic.store.active().generation
    fresh = semantic.store.new_generation()
    read = drain(tail, semantic, checkpoints, fresh)
    semantic.store.activate(fresh.generation)
    read += drain(tail, semantic, checkpoints, fresh)  # events appended while it was building
    logger.info("replay activated", extra={"generation": fresh.generation, "events": read})
    return ReplayResult(generation=fresh.generation, previous_generation=previous, events_read=read)
