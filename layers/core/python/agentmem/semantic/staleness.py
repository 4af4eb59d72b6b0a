"""Marking dependents stale from the projection step that moves a belief: the same step, so no
reader sees a belief's new version while what was built on the old one still looks fresh."""

from __future__ import annotations

import logging

from agentmem.model.beliefs import Belief, Verdict
from agentmem.model.dependents import REASONS, BeliefRef
from agentmem.ports.dependents import DependentsIndex

logger = logging.getLogger(__name__)


def ref_of(belief: Belief) -> BeliefRef:
    return BeliefRef(subject_id=belief.subject_id, key=belief.key, member=belief.member or None)


class StaleMarker:
    """What the projector tells the dependents index after it wrote a chain."""

    def __init__(self, index: DependentsIndex) -> None:
        self._index = index

    def moved(self, before: Belief | None, after: Belief) -> None:
        """`after` replaced `before` as the chain's current version (a SAME restatement changes
        no version, and marks nothing)."""
        if before is None or after.version != before.version:
            self.mark(after)

    def mark(self, current: Belief) -> None:
        """Mark every use of an older version than `current`. Also called for a redelivered
        event, which finds its statement applied: the write may have landed and the mark not
        (a crash between the two), and marking again is a no-op otherwise."""
        if current.verdict is Verdict.SAME:  # a restated version keeps its own verdict: never here
            return
        marked = self._index.mark_stale(ref_of(current), current.version, REASONS[current.verdict.value])
        if marked:
            logger.info(
                "dependents marked stale",
                extra={"doc_id": current.doc_id, "version": current.version, "dependents": len(marked)},
            )
