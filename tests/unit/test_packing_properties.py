"""Properties of the packer over random candidates, budgets and shares (hypothesis), counted
with the real tokenizer: never over budget, deterministic, and detail goes before items do."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmem.adapters.tokens import count_tokens
from agentmem.packing.engine import pack, render
from agentmem.packing.model import Candidate, Packed, Placed, Section

SECTIONS = [Section("semantic", "What is known"), Section("episodic", "This session")]
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
            )
        )
    return out


def run(cands: list[Candidate], budget: int, split: float, encoding: str = "o200k_base") -> Packed:
    return pack(
        cands, budget=budget, shares={"episodic": split, "semantic": 1 - split}, sections=SECTIONS,
        title="Context for planner: what next?", count=lambda t: count_tokens(t, encoding),  # type: ignore[arg-type]
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
    assert {p.candidate.item_id for p in packed.placed}.isdisjoint({d.item_id for d in packed.dropped})
    assert len(packed.placed) + len(packed.dropped) == len(cands)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cands=candidates(),
    budget=st.integers(min_value=1, max_value=800),
    split=st.floats(min_value=0, max_value=1),
)
def test_an_item_is_dropped_only_when_degrading_everything_would_not_make_room(
    cands: list[Candidate], budget: int, split: float
) -> None:
    packed = run(cands, budget, split)
    title = "Context for planner: what next?"
    at_identity = [Placed(p.candidate, len(p.candidate.renders) - 1, 0) for p in packed.placed]
    by_id = {c.item_id: c for c in cands}
    for dropped in packed.dropped:
        extra = Placed(by_id[dropped.item_id], len(by_id[dropped.item_id].renders) - 1, 0)
        # In rank order, where the packer would have put it: a line's tokens depend on its neighbours.
        with_it = sorted([*at_identity, extra], key=lambda p: (-p.candidate.score, p.candidate.item_id))
        assert count_tokens(render(title, SECTIONS, with_it)) > budget, dropped


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cands=candidates(), encoding=st.sampled_from(["o200k_base", "cl100k_base"]), data=st.data())
def test_the_document_count_is_the_sum_of_its_line_chunks(
    cands: list[Candidate], encoding: str, data: st.DataObject
) -> None:
    """What lets the packer count without rendering: tiktoken never joins two lines."""
    from agentmem.packing.engine import _Packer, rank

    ranked = rank(cands)
    counter = lambda t: count_tokens(t, encoding)  # type: ignore[arg-type]  # noqa: E731
    packer = _Packer(ranked, 10_000, SECTIONS, "Context for planner: what next?", counter)
    levels = {
        c.item_id: data.draw(st.integers(0, len(c.renders) - 1)) for c in ranked if data.draw(st.booleans())
    }
    placed = [Placed(c, levels[c.item_id], 0) for c in ranked if c.item_id in levels]
    assert packer.tokens_of(levels) == counter(render("Context for planner: what next?", SECTIONS, placed))


# -- the composer's policy: the ranking's prefix takes its detail first -------------------------


def run_prefix(cands: list[Candidate], budget: int, preamble: str, share: float) -> Packed:
    return pack(
        cands, budget=budget, shares={"semantic": 1.0, "episodic": 1.0}, sections=SECTIONS,
        title="skill: question", count=lambda t: count_tokens(t, "o200k_base"), encoding="o200k_base",
        preamble=preamble, prefix_identity_share=share,
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
