"""Near-duplicate detection with a prefix filter gives exactly what comparing all pairs gives."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from agentmem.context.text import NearDuplicates, shingle_set, words

Shingles = frozenset[tuple[str, ...]]


def all_pairs(texts: list[Shingles], threshold: float) -> list[int | None]:
    """The reference: each text against every text kept before it, smallest key first."""
    kept: list[tuple[int, Shingles]] = []
    answers: list[int | None] = []
    for key, mine in enumerate(texts):
        twin = next(
            (
                other
                for other, theirs in kept
                if (not mine and not theirs)
                or (mine and len(mine & theirs) / len(mine | theirs) >= threshold)
            ),
            None,
        )
        answers.append(twin)
        if twin is None:
            kept.append((key, mine))
    return answers


# A small vocabulary, so random texts often share most of their shingles.
texts = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=14).map(
        lambda w: frozenset(shingle_set(w))
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from([0.5, 0.8, 0.9, 1.0]), st.integers(min_value=0, max_value=30))
def test_prefix_filtering_finds_exactly_the_near_duplicates_all_pairs_would(
    shingles: list[Shingles], threshold: float, counted: int
) -> None:
    # Frequencies from some of the texts only (as a read counts its likeliest candidates): the
    # order they give must not change any answer, only how many texts get the exact check.
    frequency = Counter(shingle for s in shingles[:counted] for shingle in s)
    for seen in (NearDuplicates(threshold), NearDuplicates(threshold, frequency=frequency)):
        assert [seen.add(key, s) for key, s in enumerate(shingles)] == all_pairs(shingles, threshold)


def test_a_restated_note_is_a_twin_and_a_different_one_is_not() -> None:
    seen = NearDuplicates()
    base = words("the client prefers low cost index funds for retirement and wants a review in may")
    assert seen.add(1, shingle_set(base)) is None
    assert seen.add(2, shingle_set([*base, "please"])) == 1  # 13 of 14 shingles shared: 0.93
    assert seen.add(3, shingle_set([*base[:6], "bonds", *base[7:]])) is None  # 10 of 16: 0.63
    assert seen.add(4, set()) is None
    assert seen.add(5, set()) == 4
