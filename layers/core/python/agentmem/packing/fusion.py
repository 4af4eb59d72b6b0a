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
# terms, and its ranks are noise. The gate trusts the keyword list only when one of its top hits
# covers at least half of the query's content terms. The threshold is a stated rule ("most of
# what was asked appears in the document"), not a figure fitted to a benchmark.

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
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def term_coverage(query: str, text: str) -> float:
    """The share of the query's content terms that `text` contains (crudely stemmed)."""
    wanted = content_terms(query)
    return len(wanted & content_terms(text)) / len(wanted) if wanted else 0.0


def keyword_gate(query: str, top_texts: Sequence[str]) -> tuple[float, str]:
    """(weight of the keyword ranker, why): 1 when a top keyword hit covers enough of the query,
    else 0, and the fusion is the other rankers' alone."""
    best = max((term_coverage(query, t) for t in top_texts[:KEYWORD_GATE_TOP]), default=0.0)
    if best >= KEYWORD_GATE_COVERAGE:
        return 1.0, f"open: a top keyword hit covers {best:.0%} of the query's terms"
    return 0.0, f"closed: the best top keyword hit covers {best:.0%} of the query's terms (< 50%)"
