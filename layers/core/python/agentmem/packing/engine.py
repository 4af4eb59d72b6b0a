"""Pack ranked candidates into a token budget.

Detail first: the best-ranked items take their fullest rendering that fits, and what is left
below them is listed by identity only within a bounded share of the budget, so identity lines
never crowd out the bodies (`admission.py` has the two policies). Costs are exact token counts of
each rendered line, used as estimates; the document is then counted whole, and if the joins cost
more than the parts the lowest-ranked item goes (the ranked prefix takes its detail first) until
it fits. The same candidates always give the same bytes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from agentmem.packing.admission import NO_ROOM, Admission, detail_first, pooled, ranked_prefix
from agentmem.packing.costs import Counter, DocumentCosts, rank, render
from agentmem.packing.model import Candidate, Dropped, Packed, Placed, Section

__all__ = ["IDENTITY_SHARE", "Counter", "pack", "rank", "render"]

IDENTITY_SHARE = 0.05
"""At most this share of a read's room lists items by identity only: the share the composer
measured best on its golden set (compose/layout.py); bench/small_budget.py measures reads."""

Policy = Literal["detail_first", "ranked_prefix", "pooled"]
Shrink = Callable[[list[Placed]], list[Placed]]


def pack(
    candidates: Sequence[Candidate],
    *,
    budget: int,
    shares: dict[str, float],
    sections: Sequence[Section],
    title: str,
    count: Counter,
    encoding: str,
    preamble: str = "",
    identity_share: float = IDENTITY_SHARE,
    policy: Policy = "detail_first",
) -> Packed:
    """`shares` maps each requested source to its weight in the budget (normalised here; with
    `ranked_prefix` and `pooled` they only say which sources are requested: the ranking shares
    one pool).
    `preamble` is fixed text placed after the title, before the sections (it counts)."""
    costs = DocumentCosts(rank(candidates), budget, sections, title, count, preamble)
    base = count(render(title, sections, [], preamble))
    if base > budget:
        dropped = [
            Dropped(c.item_id, c.source, "budget smaller than the document's title") for c in costs.ranked
        ]
        return Packed("", 0, budget, [], dropped, {}, encoding)
    if policy == "ranked_prefix":
        admission = ranked_prefix(costs, budget - base, identity_share)
    elif policy == "pooled":
        admission = pooled(costs, budget - base, shares.keys(), identity_share)
    else:
        admission = detail_first(costs, budget - base, shares, identity_share)
    placed, markdown, tokens = costs.exact(admission.levels)
    shrink = _degrade if policy == "ranked_prefix" else _drop_last
    return _finish(costs, placed, markdown, tokens, shrink, admission, shares, encoding)


def _finish(
    costs: DocumentCosts,
    placed: list[Placed],
    markdown: str,
    tokens: int,
    shrink: Shrink,
    admission: Admission,
    shares: dict[str, float],
    encoding: str,
) -> Packed:
    budget, count = costs.budget, costs.count
    while tokens > budget and placed:  # estimates ran over
        placed, markdown, tokens = costs.exact({p.candidate.item_id: p.level for p in shrink(placed)})
    # The budget is never taken on trust: the rendered document itself is counted once more.
    tokens = count(markdown)
    while tokens > budget and placed:
        placed = shrink(placed)
        markdown = render(costs.title, costs.sections, placed, costs.preamble)
        tokens = count(markdown)

    kept = {p.candidate.item_id for p in placed}
    dropped = [
        Dropped(c.item_id, c.source, _reason(c, admission, shares))
        for c in costs.ranked
        if c.item_id not in kept
    ]
    by_source: dict[str, int] = {}
    for p in placed:
        by_source[p.candidate.source] = by_source.get(p.candidate.source, 0) + p.tokens
    return Packed(markdown, tokens, budget, placed, dropped, by_source, encoding)


def _reason(c: Candidate, admission: Admission, shares: dict[str, float]) -> str:
    if c.source not in shares:
        return "source not requested"
    if c.item_id in admission.levels:
        return admission.shrunk
    return admission.reasons.get(c.item_id, NO_ROOM)


def _degrade(placed: list[Placed]) -> list[Placed]:
    """Degrade the lowest-ranked item that can still lose detail, else drop the last one."""
    for i in range(len(placed) - 1, -1, -1):
        p = placed[i]
        if p.level < len(p.candidate.renders) - 1:
            return [*placed[:i], Placed(p.candidate, p.level + 1, 0), *placed[i + 1 :]]
    return placed[:-1]


def _drop_last(placed: list[Placed]) -> list[Placed]:
    """Drop the lowest-ranked item: what is left keeps every property of the admission (detail
    by rank, the identity share), where degrading one item's detail could break them."""
    return placed[:-1]
