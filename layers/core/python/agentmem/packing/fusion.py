"""Reciprocal rank fusion, shared by every path that merges rankers (beliefs, skills)."""

from __future__ import annotations

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
