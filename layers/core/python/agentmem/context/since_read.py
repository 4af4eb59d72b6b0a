"""One read's part in reads since a watermark: it parses the `since` it was given, notes the
belief frontier before it searches, leads its candidates with what changed, and leaves in its
trace the watermark a later read can lead from (since.py, since_lead.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agentmem.context.retirements import Retired
from agentmem.context.session_window import SessionWindow
from agentmem.context.since import check_watermark, find_news, watermark_of
from agentmem.context.since_lead import HEADING, SHARE, SOURCE, Led, lead_with, origin
from agentmem.errors import InvalidInputError
from agentmem.model.beliefs import Belief
from agentmem.model.context import ContextRequest
from agentmem.model.watermark import Watermark
from agentmem.packing.costs import Counter, rank, render
from agentmem.packing.engine import IDENTITY_SHARE
from agentmem.packing.model import Candidate, Dropped, Packed, Placed, Section
from agentmem.ports.log import EventLog
from agentmem.ports.semantic import BeliefIndex


@dataclass
class SinceRead:
    watermark: Watermark | None
    frontier: str = ""  # the subject's belief frontier, read before the read's searches
    index: BeliefIndex | None = None
    led: Led | None = None
    last_seq: int = 0  # the session's, as the read saw it
    needed: int = 0  # the budget every change needs, when some were left out

    @classmethod
    def of(cls, request: ContextRequest) -> SinceRead:
        if request.since is None:
            return cls(None)
        watermark = Watermark.parse(request.since)
        if watermark.subject_id != request.subject_id:
            raise InvalidInputError(
                f"since was taken for subject {watermark.subject_id}, not {request.subject_id}",
                field="since",
            )
        return cls(watermark)

    def saw(self, index: BeliefIndex, subject_id: str) -> None:
        """Called before the beliefs are searched: what is at or before this frontier, the read
        could see; what a later read finds past it, it could not."""
        self.index = index
        self.frontier = index.frontier(subject_id)

    def lead(
        self,
        request: ContextRequest,
        window: SessionWindow | None,
        log: EventLog,
        beliefs: list[Belief],
        candidates: list[Candidate],
        dropped: list[Dropped],
        retired: Retired | None,
        notes: list[str],
    ) -> tuple[list[Candidate], list[Dropped]]:
        """The candidates with the changes after the watermark leading (unchanged without one).
        `log` answers the session's last seq when the read ranked no window (no episodic)."""
        self.last_seq = window.last_seq if window is not None else log.last_seq(request.session_id)
        if self.watermark is None:
            return candidates, dropped
        check_watermark(self.watermark, request.subject_id, request.session_id, self.last_seq)
        events = [t.event for t in window.events] if window is not None else None
        index = self.index if "semantic" in request.include else None
        news = find_news(self.watermark, request.session_id, events, index, beliefs)
        notes += news.notes
        self.led, dropped = lead_with(news, candidates, dropped, retired, request.include)
        return self.led.candidates, dropped

    def packed(
        self,
        pack: Callable[[list[Candidate]], Packed],
        candidates: list[Candidate],
        title: str,
        count: Counter,
    ) -> Packed:
        """`pack(candidates)`, held to the rule that no change is dropped for budget while an
        unchanged item is placed. The changes rank first, so a walk down the ranking places them
        first; but a change whose detail does not fit is set aside and smaller items below it may
        still fit. Then the changes alone are packed: they take the room, and every unchanged
        item is listed as dropped for them."""
        packed = pack(candidates)
        if self.led is None:
            return packed
        lost = any(d.source == SOURCE for d in packed.dropped)
        if lost:  # what a re-read needs to place every change: the changes alone, at full detail
            changes = [Placed(c, 0, 0) for c in rank(candidates) if c.source == SOURCE]
            base = count(render(title, [], []))
            whole = count(render(title, [Section(SOURCE, HEADING)], changes))
            # The packer holds IDENTITY_SHARE of the room back for identity lines and admits on
            # per-line estimates (a token or two over the exact count each): both are added.
            self.needed = base + math.ceil((whole - base + 2 * len(changes)) / (1 - IDENTITY_SHARE))
        if not lost or all(p.candidate.source == SOURCE for p in packed.placed):
            return packed
        alone = pack([c for c in candidates if c.source == SOURCE])
        yielded = [
            Dropped(c.item_id, origin(c), "budget: the changes since `since` took the room")
            for c in candidates
            if c.source != SOURCE
        ]
        return replace(alone, dropped=[*alone.dropped, *yielded])

    def shares(self, shares: dict[str, float], *, pooled: bool) -> dict[str, float]:
        """The changes as one more source: in one ranking they only need naming (they rank first);
        with `split`, a share so large that their whole demand is met before any other's."""
        if self.led is None:
            return shares
        return {SOURCE: 1.0 if pooled else SHARE, **shares}


def since_sections(since: SinceRead) -> list[Section]:
    return [Section(SOURCE, HEADING)] if since.led is not None else []


def trace_of_since(
    since: SinceRead, request: ContextRequest, window: SessionWindow | None, packed: Packed
) -> dict[str, Any]:
    """The trace's `watermark`, and with `since` what changed and which items say it."""
    last = window.events[-1].event if window is not None and window.events else None
    placed = [
        str(p.candidate.meta["doc_id"])
        for p in packed.placed
        if origin(p.candidate) == "semantic" and "version" in p.candidate.meta
    ]
    watermark = watermark_of(
        request.subject_id, request.session_id, last, since.last_seq, since.frontier, placed
    )
    out: dict[str, Any] = {"watermark": watermark.token()}
    if since.led is not None:
        left_out = [d.item_id for d in packed.dropped if d.source == SOURCE]
        report = {"left_out": left_out, "needed_tokens": since.needed if left_out else 0}
        out["since"] = since.led.report.model_copy(update=report)
        out["new_since"] = [p.candidate.item_id for p in packed.placed if p.candidate.source == SOURCE]
    return out
