"""Reciprocal rank fusion, shared by every path that merges rankers (beliefs, skills)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", str, tuple[str, str])  # item ids: a doc id, or a (kind, id) pair
RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[K]], *, weights: Mapping[str, float] | None = None, k: int = RRF_K
) -> list[tuple[K, float, dict[str, int]]]:
    """(key, fused score, rank under each ranker that found it), best first; ties break on the key.
    Each ranker adds weight/(k + rank): with weights, a weak ranker cannot outvote a strong one."""
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for ranker, keys in rankings.items():
        weight = 1.0 if weights is None else weights[ranker]
        for rank, key in enumerate(keys, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
            ranks.setdefault(key, {})[ranker] = rank
    return [(key, scores[key], ranks[key]) for key in sorted(scores, key=lambda key: (-scores[key], key))]


# -- the keyword gate ------------------------------------------------------------------------
# Equal-weight fusion lets a weak ranker outvote a strong one. BM25 is weak exactly when the query
# says things in other words than the documents: then its best hits share few of the query's
# terms, and its ranks are noise. So the keyword list's weight follows how much of the query its
# best top hit literally contains: nothing up to half of the query's content terms, rising
# linearly to full weight when it contains all of them. (A first version switched fully on at
# half: on bench/skills.py's paraphrased queries that let near-duplicate siblings in, and fused
# recall@10 came out 0.365 against vector's 0.368. docs/benchmarks.md reports both.)

KEYWORD_GATE_COVERAGE = 0.5
KEYWORD_GATE_TOP = 3
_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = (
    "a an and are as at be by can do does for from has have how i in into is it its of on or our per "
    "show so that the their them there these this to us was we what when where which who why will "
    "with you your"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""Words that say nothing about what a query is after (shared by every keyword heuristic)."""


def _stem(word: str) -> str:
    """Crude on purpose: `rotate`, `rotates`, `rotated` and `rotating` all become `rotat`."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word


def content_terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def term_coverage(query: str, text: str) -> float:
    """The share of the query's content terms that `text` contains (crudely stemmed)."""
    wanted = content_terms(query)
    return len(wanted & content_terms(text)) / len(wanted) if wanted else 0.0


def keyword_gate(query: str, top_texts: Sequence[str]) -> tuple[float, str]:
    """(weight of the keyword ranker, why): 0 while the best of its top hits covers at most half
    of the query's content terms (the fusion is then the other rankers' alone), rising linearly
    to 1 at full coverage."""
    best = max((term_coverage(query, t) for t in top_texts[:KEYWORD_GATE_TOP]), default=0.0)
    weight = round(max(0.0, (best - KEYWORD_GATE_COVERAGE) / (1 - KEYWORD_GATE_COVERAGE)), 3)
    state = "closed" if weight == 0 else f"weight {weight:g}"
    return weight, f"{state}: the best top keyword hit covers {best:.0%} of the query's terms"
