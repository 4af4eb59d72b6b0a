"""Which items enter the document, and at which rendering: detail first, identity lines last.

Both policies walk the ranking best first and give each item the fullest rendering that still
fits, so the best-ranked items arrive with their bodies, and hold a bounded share of the room
back to list further items by identity only. They differ where the ranking's order must show:

- `detail_first` (context reads, skill search): each requested source gets its share of the
  room; an item whose detail does not fit is listed by identity, within the identity share, and
  the walk goes on, so one huge item never leaves a source without text.
- `ranked_prefix` (the composer): one pool, and the cut is a prefix of the ranking: the first item
  that fits at no level ends the detail, and no item below an item that does not fit gets in.
- `pooled` (context reads): one pool, greedy in rank order: an item whose detail does not fit is
  set aside and the walk goes on, so the budget follows the ranking alone, whatever the source."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from agentmem.packing.costs import DocumentCosts
from agentmem.packing.model import Candidate

NO_ROOM = "budget: no room even at identity level"


def waterfill(total: int, shares: Mapping[str, float], demand: Mapping[str, int]) -> dict[str, int]:
    """Split `total` between the sources by `shares`; a source that needs less than its part
    keeps only what it needs and the rest is split again between the others. Sources whose shares
    are all zero split what is left evenly, so no room is held for a source that cannot use it."""
    allocation: dict[str, int] = {}
    waiting = sorted(shares)
    left = total
    while waiting:
        weight = sum(shares[s] for s in waiting)
        part = {s: left * shares[s] / weight if weight > 0 else left / len(waiting) for s in waiting}
        sated = [s for s in waiting if demand.get(s, 0) <= part[s]]
        if not sated:
            allocation.update({s: int(part[s]) for s in waiting})
            break
        for s in sated:
            allocation[s] = demand.get(s, 0)
            left -= allocation[s]
        waiting = [s for s in waiting if s not in sated]
    return allocation


@dataclass
class Admission:
    levels: dict[str, int]
    """item id -> the rendering it takes."""
    reasons: dict[str, str] = field(default_factory=dict)
    """item id -> why it was left out, for the items the policy considered and did not admit."""
    shrunk: str = "budget: no room once the document was counted exactly"
    """Why an admitted item was dropped when the whole document's exact count ran over."""


def detail_first(
    costs: DocumentCosts, room: int, shares: Mapping[str, float], identity_share: float
) -> Admission:
    """Hold `identity_share` of the room back for identity lines and split the rest between the
    requested sources (`waterfill`, weighted by `shares`, each source's need being its items at
    full). In rank order, each item of a source takes the fullest detailed rendering (any but the
    last) that fits in what its source has left; an item none of whose detailed renderings fits
    is set aside. Then the items set aside are listed at identity level, in rank order within
    their source, until the first that does not fit in its source's part of the identity room.

    So a higher-ranked item renders at less detail than a lower one of its source only when its
    fuller rendering cost more than the room the lower one still found, and identity lines never
    take more than their share."""
    identity_room = int(room * identity_share)
    ranked = [c for c in costs.ranked if c.source in shares]

    need = _with_headings(
        costs, {s: [costs.line_cost(c, 0) for c in ranked if c.source == s] for s in shares}
    )
    left = waterfill(room - identity_room, shares, need)
    levels: dict[str, int] = {}
    opened: set[object] = set()
    aside: list[Candidate] = []
    for c in ranked:
        head = costs.opening_cost(c, opened)
        # The first detailed rendering that fits: the ones below it are never counted.
        fits = next(
            (lvl for lvl in range(len(c.renders) - 1) if costs.line_cost(c, lvl) + head <= left[c.source]),
            None,
        )
        if fits is None:
            aside.append(c)
            continue
        left[c.source] -= costs.line_cost(c, fits) + head
        levels[c.item_id] = fits
        costs.open(c, opened)

    listing = {s: [costs.line_cost(c, len(c.renders) - 1) for c in aside if c.source == s] for s in shares}
    room_of = waterfill(identity_room, shares, _with_headings(costs, listing, opened))
    full: set[str] = set()
    reasons: dict[str, str] = {}
    for c in aside:
        cost = costs.line_cost(c, len(c.renders) - 1) + costs.opening_cost(c, opened)
        if c.source in full or cost > room_of[c.source]:
            full.add(c.source)  # the list is a prefix of what was set aside: nothing skips ahead
            reasons[c.item_id] = (
                f"budget: no room for its detail, and the identity list ({identity_share:.0%}) is full"
            )
            continue
        room_of[c.source] -= cost
        levels[c.item_id] = len(c.renders) - 1
        costs.open(c, opened)
    return Admission(levels, reasons)


def _with_headings(
    costs: DocumentCosts, lines: Mapping[str, list[int]], opened: set[object] | None = None
) -> dict[str, int]:
    """What each source needs for `lines`: their sum, and its heading unless already `opened`."""
    return {
        s: sum(cost) + (0 if s in (opened or set()) else costs.headings.get(s, 0)) if cost else 0
        for s, cost in lines.items()
    }


def ranked_prefix(costs: DocumentCosts, room: int, identity_share: float) -> Admission:
    """Detail first, in rank order, in one pool: each item takes the fullest rendering that still
    fits beside what the items above it took, keeping `identity_share` of the room back. The first
    item that fits at no level ends the detail; the items from it on are admitted at identity
    level, in rank order, until one does not fit in the whole room."""
    levels: dict[str, int] = {}
    opened: set[object] = set()
    spent, detail_room = 0, room - int(room * identity_share)

    rest = costs.ranked
    for n, c in enumerate(costs.ranked):
        fits = [
            lvl
            for lvl in range(len(c.renders))
            if spent + costs.line_cost(c, lvl) + costs.opening_cost(c, opened) <= detail_room
        ]
        if not fits:
            rest = costs.ranked[n:]
            break
        spent += costs.line_cost(c, fits[0]) + costs.opening_cost(c, opened)
        levels[c.item_id] = fits[0]
        costs.open(c, opened)
    else:
        rest = []
    for c in rest:
        cost = costs.line_cost(c, len(c.renders) - 1) + costs.opening_cost(c, opened)
        if spent + cost > room:
            break  # a prefix: nothing below an item that does not fit gets in
        spent += cost
        levels[c.item_id] = len(c.renders) - 1
        costs.open(c, opened)
    return Admission(levels, shrunk=NO_ROOM)


def pooled(costs: DocumentCosts, room: int, sources: Collection[str], identity_share: float) -> Admission:
    """One pool for every source in `sources`, walked best first: each item takes the fullest
    detailed rendering (any but the last) that fits in what is left, headings included; an item
    none of whose detailed renderings fits is set aside and the walk goes on. Then the items set
    aside are listed at identity level, in rank order, until the first that does not fit in the
    identity room (`identity_share` of the room, held back from the detail).

    No source has a share: which source an item comes from never buys or costs it room, so the
    document holds what the ranking puts first (a session's own log or a belief that does not
    match the query spends nothing the ranking did not give it)."""
    identity_room = int(room * identity_share)
    left = room - identity_room
    levels: dict[str, int] = {}
    opened: set[object] = set()
    aside: list[Candidate] = []

    for c in costs.ranked:
        if c.source not in sources:
            continue
        head = costs.opening_cost(c, opened)
        detailed = range(len(c.renders) - 1)
        fits = next((lvl for lvl in detailed if costs.line_cost(c, lvl) + head <= left), None)
        if fits is None:
            aside.append(c)
            continue
        left -= costs.line_cost(c, fits) + head
        levels[c.item_id] = fits
        costs.open(c, opened)
    identity_left = identity_room
    reasons: dict[str, str] = {}
    for n, c in enumerate(aside):
        cost = costs.line_cost(c, len(c.renders) - 1) + costs.opening_cost(c, opened)
        if cost > identity_left:
            for rest in aside[n:]:  # a prefix of what was set aside: nothing skips ahead
                reasons[rest.item_id] = (
                    f"budget: no room for its detail, and the identity list ({identity_share:.0%}) is full"
                )
            break
        identity_left -= cost
        levels[c.item_id] = len(c.renders) - 1
        costs.open(c, opened)
    return Admission(levels, reasons)
