"""Properties of the packer over random candidates, budgets and shares (hypothesis), counted
with the real tokenizer: never over budget, deterministic, the best-ranked items take their
detail first, and identity lines keep to their share of the budget."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmem.adapters.tokens import count_tokens
from agentmem.packing.admission import waterfill
from agentmem.packing.costs import DocumentCosts, rank
from agentmem.packing.engine import IDENTITY_SHARE, pack, render
from agentmem.packing.model import Candidate, Packed, Placed, Section

SECTIONS = [Section("semantic", "What is known"), Section("episodic", "This session")]
TITLE = "Context for planner"
text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=120
).filter(str.strip)


@st.composite
def candidates(draw: st.DrawFn) -> list[Candidate]:
    n = draw(st.integers(min_value=0, max_value=25))
    out = []
    for i in range(n):
        identity = draw(text)
        levels = draw(st.lists(text, min_size=0, max_size=2))
        out.append(
            Candidate(
                item_id=f"item-{i:03d}",
                source=draw(st.sampled_from(["semantic", "episodic"])),
                score=draw(st.floats(min_value=0, max_value=1, allow_nan=False)),
                renders=(*[lv + " " + identity for lv in levels], identity),
                group=draw(st.sampled_from(GROUPS)),
            )
        )
    return out


GROUPS = ("", "S1 (2026-03-01)", "S2 (2026-04-02)")


def run(cands: list[Candidate], budget: int, split: float, encoding: str = "o200k_base") -> Packed:
    return pack(
        cands, budget=budget, shares={"episodic": split, "semantic": 1 - split}, sections=SECTIONS,
        title=TITLE, count=lambda t: count_tokens(t, encoding),  # type: ignore[arg-type]
        encoding=encoding,
    )  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cands=candidates(),
    budget=st.integers(min_value=1, max_value=1500),
    split=st.floats(min_value=0, max_value=1),
    encoding=st.sampled_from(["o200k_base", "cl100k_base"]),
)
def test_never_over_budget_and_deterministic(
    cands: list[Candidate], budget: int, split: float, encoding: str
) -> None:
    packed = run(cands, budget, split, encoding)
    assert count_tokens(packed.markdown, encoding) == packed.tokens  # type: ignore[arg-type]
    assert packed.tokens <= budget
    assert run(list(reversed(cands)), budget, split, encoding) == packed  # input order is irrelevant
    # Each group's lines stand together under one heading, at most once per section.
    for section in packed.markdown.split("\n\n"):
        headings = [line for line in section.splitlines() if line.startswith("### ")]
        assert len(headings) == len(set(headings))
    assert {p.candidate.item_id for p in packed.placed}.isdisjoint({d.item_id for d in packed.dropped})
    assert len(packed.placed) + len(packed.dropped) == len(cands)


def costs_of(cands: list[Candidate], budget: int, encoding: str = "o200k_base") -> DocumentCosts:
    """The engine's own line and heading costs: the properties below are about its admission."""
    counter = lambda t: count_tokens(t, encoding)  # type: ignore[arg-type]  # noqa: E731
    return DocumentCosts(rank(cands), budget, SECTIONS, TITLE, counter)


def detailed(p: Placed) -> bool:
    return p.level < len(p.candidate.renders) - 1


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cands=candidates(),
    budget=st.integers(min_value=1, max_value=400),  # tight: most candidates compete for detail
    split=st.floats(min_value=0, max_value=1),
)
def test_a_higher_ranked_item_has_less_detail_only_when_its_detail_did_not_fit(
    cands: list[Candidate], budget: int, split: float
) -> None:
    """When both fit, the higher-ranked item gets at least the detail of the lower one: for any
    two items of one source, if the higher-ranked one renders with less detail than it has while
    the lower one renders with detail, each of its fuller renderings costs more than the room the
    lower one still found (its own line included when it has detail; a heading's cost of slack
    when the higher one opened its section). Ungrouped: a group's heading is slack of the same
    kind, which the bound below does not count."""
    cands = [replace(c, group="") for c in cands]
    packed = run(cands, budget, split)
    costs = costs_of(cands, budget)
    level = {p.candidate.item_id: p for p in packed.placed}
    for source in ("semantic", "episodic"):
        ranked = [c for c in costs.ranked if c.source == source]
        heading = costs.headings[source]
        for n, high in enumerate(ranked):
            placed = level.get(high.item_id)
            got = placed.level if placed and detailed(placed) else len(high.renders) - 1
            for low in ranked[n + 1 :]:
                below = level.get(low.item_id)
                if below is None or not detailed(below):
                    continue
                room_low_found = costs.line_cost(low, below.level)
                for fuller in range(got):
                    if placed is not None and detailed(placed):
                        own = costs.line_cost(high, placed.level)
                        assert costs.line_cost(high, fuller) > own + room_low_found, (high, low)
                    else:
                        assert costs.line_cost(high, fuller) + heading > room_low_found, (high, low)


@st.composite
def same_size_candidates(draw: st.DrawFn) -> list[Candidate]:
    """Items whose renderings cost the same at each level: then detail is plainly monotone."""
    n = draw(st.integers(min_value=1, max_value=30))
    full, short = draw(st.integers(5, 80)), draw(st.integers(2, 4))
    return [
        Candidate(
            f"item-{i:03d}", "semantic", draw(st.floats(0, 1)), ("fact " * full, "fact " * short, "fact")
        )
        for i in range(n)
    ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=same_size_candidates(), budget=st.integers(min_value=1, max_value=1500))
def test_with_items_of_one_size_detail_never_rises_down_the_ranking(
    cands: list[Candidate], budget: int
) -> None:
    packed = run(cands, budget, 0.0)
    levels = [p.level for p in packed.placed]
    assert levels == sorted(levels)
    placed = {p.candidate.item_id for p in packed.placed}
    ranked = [c.item_id for c in rank(cands)]
    assert ranked[: len(placed)] == [i for i in ranked if i in placed]  # nothing skips ahead


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cands=candidates(),
    budget=st.integers(min_value=1, max_value=1500),
    split=st.floats(min_value=0, max_value=1),
    share=st.sampled_from([0.0, 0.05, 0.2]),
)
def test_identity_lines_keep_to_their_share_and_list_in_rank_order(
    cands: list[Candidate], budget: int, split: float, share: float
) -> None:
    shares = {"episodic": split, "semantic": 1 - split}
    packed = pack(
        cands, budget=budget, shares=shares, sections=SECTIONS, title=TITLE,
        count=lambda t: count_tokens(t, "o200k_base"), encoding="o200k_base", identity_share=share,
    )  # fmt: skip
    costs = costs_of(cands, budget)
    base = count_tokens(render(TITLE, SECTIONS, []))
    identity = [p for p in packed.placed if not detailed(p)]
    only_ids = {s.source for s in SECTIONS} - {p.candidate.source for p in packed.placed if detailed(p)}
    spent = sum(costs.line_cost(p.candidate, p.level) for p in identity) + sum(
        costs.headings[s] for s in only_ids if any(p.candidate.source == s for p in identity)
    )
    assert spent <= int((budget - base) * share) if packed.markdown else not packed.placed
    # Within a source the identity list is a prefix of what found no room for detail.
    ids = {p.candidate.item_id for p in identity}
    dropped = {d.item_id for d in packed.dropped}
    for source in ("semantic", "episodic"):
        order = [c.item_id for c in costs.ranked if c.source == source and c.item_id in ids | dropped]
        listed = [i for i in order if i in ids]
        assert order[: len(listed)] == listed
    assert all(d.reason.startswith("budget") for d in packed.dropped)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=candidates(), budget=st.integers(min_value=1, max_value=1500))
def test_the_best_item_of_a_source_gets_its_full_body_whenever_that_fits(
    cands: list[Candidate], budget: int
) -> None:
    one_source = [Candidate(c.item_id, "semantic", c.score, c.renders) for c in cands if len(c.renders) > 1]
    packed = run(one_source, budget, 0.0)
    if not one_source:
        return
    costs = costs_of(one_source, budget)
    room = budget - count_tokens(render(TITLE, SECTIONS, []))
    best = costs.ranked[0]
    if costs.line_cost(best, 0) + costs.headings["semantic"] <= room - int(room * IDENTITY_SHARE):
        assert (packed.placed[0].candidate, packed.placed[0].level) == (best, 0)


def test_an_empty_source_leaves_its_share_to_the_others() -> None:
    beliefs = [Candidate(f"b{i}", "semantic", 1 - i / 100, (f"belief {i} " * 12, f"b{i}")) for i in range(12)]
    packed = run(beliefs, 600, 0.9)  # 90% asked for the session, which has nothing
    assert [p.level for p in packed.placed].count(0) > len(beliefs) // 2


def test_waterfill_gives_what_a_source_leaves_to_the_others_and_splits_zero_weights_evenly() -> None:
    assert waterfill(100, {"a": 0.5, "b": 0.5}, {"a": 10, "b": 500}) == {"a": 10, "b": 90}
    assert waterfill(100, {"a": 0.5, "b": 0.5}, {"a": 500, "b": 500}) == {"a": 50, "b": 50}
    assert waterfill(100, {"a": 1.0, "b": 0.0}, {"a": 30, "b": 500}) == {"a": 30, "b": 70}
    assert waterfill(100, {"a": 0.0, "b": 0.0}, {"a": 500, "b": 500}) == {"a": 50, "b": 50}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=candidates(), encoding=st.sampled_from(["o200k_base", "cl100k_base"]), data=st.data())
def test_the_document_count_is_the_sum_of_its_line_chunks(
    cands: list[Candidate], encoding: str, data: st.DataObject
) -> None:
    """What lets the packer count without rendering: tiktoken never joins two lines."""
    ranked = rank(cands)
    counter = lambda t: count_tokens(t, encoding)  # type: ignore[arg-type]  # noqa: E731
    packer = DocumentCosts(ranked, 10_000, SECTIONS, TITLE, counter)
    levels = {
        c.item_id: data.draw(st.integers(0, len(c.renders) - 1)) for c in ranked if data.draw(st.booleans())
    }
    placed = [Placed(c, levels[c.item_id], 0) for c in ranked if c.item_id in levels]
    assert packer.tokens_of(levels) == counter(render(TITLE, SECTIONS, placed))


# -- the composer's policy: the ranking's prefix takes its detail first -------------------------


def run_prefix(cands: list[Candidate], budget: int, preamble: str, share: float) -> Packed:
    return pack(
        cands, budget=budget, shares={"semantic": 1.0, "episodic": 1.0}, sections=SECTIONS,
        title="skill: question", count=lambda t: count_tokens(t, "o200k_base"), encoding="o200k_base",
        preamble=preamble, identity_share=share, policy="ranked_prefix",
    )  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cands=candidates(),
    budget=st.integers(min_value=1, max_value=1500),
    preamble=st.sampled_from(
        ["", "## Intent\nAnswer well.", "## Intent\nx\n\n## Guardrails\n  - never guess"]
    ),
    share=st.floats(min_value=0, max_value=0.5),
)
def test_prefix_policy_never_over_budget_and_never_skips_rank(
    cands: list[Candidate], budget: int, preamble: str, share: float
) -> None:
    packed = run_prefix(cands, budget, preamble, share)
    assert count_tokens(packed.markdown, "o200k_base") == packed.tokens <= budget
    assert run_prefix(list(reversed(cands)), budget, preamble, share) == packed
    if preamble and packed.markdown:
        assert preamble.strip() in packed.markdown
    # Items are admitted in rank order: a dropped item never outranks a placed one.
    ranked = [c.item_id for c in sorted(cands, key=lambda c: (-c.score, c.item_id))]
    placed = {p.candidate.item_id for p in packed.placed}
    if placed and packed.dropped:
        assert max(ranked.index(i) for i in placed) < min(ranked.index(d.item_id) for d in packed.dropped)


def test_prefix_policy_gives_the_top_item_its_full_body_before_listing_the_tail() -> None:
    top = Candidate("a", "semantic", 1.0, ("full body of a " * 20, "a"))
    tail = [Candidate(f"t{i:02d}", "semantic", 0.5 - i / 100, (f"tail {i} " * 5, f"t{i}")) for i in range(40)]
    packed = run_prefix([top, *tail], 200, "", 0.1)
    levels = {p.candidate.item_id: p.level for p in packed.placed}
    assert levels["a"] == 0
    # The identity tail is held to its share: most of the tail is dropped, not listed.
    assert len(packed.dropped) > 20
