"""The read's answer around the packed document: the budget's shares, the items, the window."""

from __future__ import annotations

from agentmem.context.session_window import SessionWindow
from agentmem.context.since_lead import origin
from agentmem.model.context import ContextItem, ContextRequest, EpisodicWindow
from agentmem.packing.model import Packed


def context_items(packed: Packed) -> list[ContextItem]:
    return [
        ContextItem(
            item_id=p.candidate.item_id,
            source=origin(p.candidate),  # a change leading the read keeps the source it came from
            level=p.level_name,
            tokens=p.tokens,
            score=round(p.candidate.score, 6),
            ref=dict(p.candidate.meta),
        )
        for p in packed.placed
    ]


def source_shares(request: ContextRequest, *, skills: bool) -> dict[str, float]:
    """The episodic share is `split`; the rest is split evenly between the other sources asked
    for (semantic, history, skills). What a source leaves unused flows to the others (the
    packer's waterfill). Without `split` the shares only name the sources: one pool."""
    others: list[str] = [
        s for s in ("semantic", "history", "skills") if s in request.include and (s != "skills" or skills)
    ]
    if request.split is None:
        return dict.fromkeys([*others, *(["episodic"] if "episodic" in request.include else [])], 1.0)
    shares: dict[str, float] = {s: (1.0 - request.split) / len(others) for s in others}
    if "episodic" in request.include:
        shares["episodic"] = request.split
    if all(v == 0 for v in shares.values()):
        shares = dict.fromkeys(shares, 1.0)
    return shares


def episodic_window(window: SessionWindow) -> EpisodicWindow:
    return EpisodicWindow(
        size=window.size,
        ranked=len(window.events),
        first_seq=window.first_seq or None,
        last_seq=window.last_seq or None,
        outside=window.outside,
        outside_seqs=(1, window.first_seq - 1) if window.outside else None,
    )
