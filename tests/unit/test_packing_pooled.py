"""The pooled policy a context read packs with: one pool for every source, walked down the
ranking; no source is owed room, and an item whose detail does not fit never stops the walk."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmem.adapters.tokens import count_tokens
from agentmem.packing.costs import DocumentCosts, rank
from agentmem.packing.engine import pack
from agentmem.packing.model import Candidate, Packed, Section

SECTIONS = [
    Section("semantic", "What is known"),
    Section("history", "Earlier sessions"),
    Section("episodic", "This session"),
]
TITLE = "Context for reader"
SOURCES = [s.source for s in SECTIONS]


def count(text: str) -> int:
    return count_tokens(text, "o200k_base")


def pooled(cands: list[Candidate], budget: int, identity_share: float = 0.05) -> Packed:
    return pack(
        cands, budget=budget, shares=dict.fromkeys(SOURCES, 1.0), sections=SECTIONS, title=TITLE,
        count=count, encoding="o200k_base", policy="pooled", identity_share=identity_share,
    )  # fmt: skip


@st.composite
def candidates(draw: st.DrawFn) -> list[Candidate]:
    n = draw(st.integers(min_value=0, max_value=30))
    return [
        Candidate(
            item_id=f"item-{i:03d}",
            source=draw(st.sampled_from(SOURCES)),
            score=draw(st.floats(min_value=0, max_value=1, allow_nan=False)),
            renders=("word " * draw(st.integers(1, 60)) + f"#{i}", f"id {i}"),
        )
        for i in range(n)
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=candidates(), budget=st.integers(min_value=1, max_value=1200))
def test_pooled_never_over_budget_and_the_same_whatever_the_input_order(
    cands: list[Candidate], budget: int
) -> None:
    packed = pooled(cands, budget)
    assert packed.tokens == count(packed.markdown) <= budget
    assert pooled(list(reversed(cands)), budget) == packed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=candidates(), budget=st.integers(min_value=30, max_value=1200))
def test_an_item_left_without_detail_is_one_whose_detail_did_not_fit_beside_those_above_it(
    cands: list[Candidate], budget: int
) -> None:
    """Greedy in rank order across sources: whatever the source, an item goes without its body
    only when that body did not fit in the room the items ranked above it left."""
    packed = pooled(cands, budget, identity_share=0.0)
    costs = DocumentCosts(rank(cands), budget, SECTIONS, TITLE, count)
    room = budget - count(f"# {TITLE}\n")
    detailed = {p.candidate.item_id for p in packed.placed if p.level == 0}
    spent, opened = 0, set()
    for c in costs.ranked:
        head = 0 if c.source in opened else costs.headings[c.source]
        if c.item_id in detailed:
            spent += costs.line_cost(c, 0) + head
            opened.add(c.source)
        elif packed.tokens < budget - 1:  # the exact count did not have to shrink the document
            assert spent + costs.line_cost(c, 0) + head > room, c.item_id


def test_a_session_with_many_events_takes_no_room_the_ranking_did_not_give_it() -> None:
    """Thirty recent but unmatched events rank below three matching passages: the passages get
    their bodies first, whatever share a split would have given the session."""
    session = [
        Candidate(f"event-{i:02d}", "episodic", 0.001, (f"turn {i} " * 20, f"#{i}")) for i in range(30)
    ]
    passages = [
        Candidate(f"passage-{i}", "history", 0.03 - i / 1000, (f"match {i} " * 20, f"p{i}")) for i in range(3)
    ]
    packed = pooled(session + passages, 250)
    placed = [p.candidate.item_id for p in packed.placed if p.level == 0]
    assert placed[:3] == ["passage-0", "passage-1", "passage-2"]
    assert packed.tokens_by_source["history"] > packed.tokens_by_source.get("episodic", 0)
