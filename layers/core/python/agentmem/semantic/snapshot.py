"""Seed a generation from the observations retention kept when it expired their events.

A replay folds these together with what is left of the log; the fold orders every observation by
its place in the log, so the result is the one the full log would have given."""

from __future__ import annotations

from agentmem.ports.semantic import BeliefIndex, ObservationSnapshot
from agentmem.semantic.service import SemanticService


def seed(
    snapshot: ObservationSnapshot | None,
    semantic: SemanticService,
    index: BeliefIndex,
    *,
    only_subject: str | None = None,
) -> int:
    """Fold every kept observation (of `only_subject`, when given) into `index`; returns how many."""
    if snapshot is None:
        return 0
    projector = semantic.projector(index)
    seeded = 0
    for page in snapshot.pages(only_subject):
        projector.project_observations(page)
        seeded += len(page)
    return seeded
