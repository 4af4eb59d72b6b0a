"""Route the candidate pool by its size, then rank it with reciprocal rank fusion (k=60).

- a handful (≤ HANDFUL): every candidate is fetched whole and ranked;
- hundreds (≤ HUNDREDS): the LLM port's relevance filter keeps what is on topic, when one is
  configured; the reranker orders the pool on short bodies (Bedrock Rerank on AWS; locally the
  fused BM25 + vector ranks within the pool); an LLM ranker, if configured, adds its ranking;
- thousands: vector similarity cuts the pool to HUNDREDS first, then as above.

Every candidate also gets a vector and a BM25 rank within the pool (`pool_vector`,
`pool_keyword`), so assets that a traversal pulled in (parents, relatives) are ranked on their own
merit, not only by who brought them; locally, that fusion is the rerank. Fusion is weighted: the
traversals vouch for relevance less than the searches do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentmem.compose.indexing import embedding_text
from agentmem.compose.llm_ranking import llm_filter, llm_rank
from agentmem.compose.report import DroppedAsset
from agentmem.compose.strategies import Retrieval
from agentmem.packing.fusion import RRF_K, reciprocal_rank_fusion
from agentmem.ports.catalogue import AssetIndex
from agentmem.ports.ranking import RelevanceModel, Reranker

HANDFUL = 25
HUNDREDS = 1000
RENDER_CAP = 150
"""Candidates that go on to rendering; the packer needs no more to fill 50,000 tokens."""
RERANK_DEPTH = 100
WEIGHTS = {
    "entities": 1.0,
    "keyword": 1.0,
    "vector": 1.0,
    "pool_vector": 1.0,
    "pool_keyword": 1.0,
    "rerank": 1.5,
    "llm": 1.5,
    "hierarchy": 0.5,
    "orphans": 0.5,
    "relatives": 0.5,
}


@dataclass
class Ranked:
    ids: list[str]
    scores: dict[str, float]
    lists: dict[str, list[str]]
    route: str
    dropped: list[DroppedAsset] = field(default_factory=list)


@dataclass(frozen=True)
class Rankers:
    """The optional models: a reranker (Bedrock Rerank) and the LLM port's relevance model."""

    reranker: Reranker | None = None
    llm: RelevanceModel | None = None
    llm_rank: bool = False
    count: Callable[[str], int] = len


def rank_candidates(
    r: Retrieval,
    index: AssetIndex,
    rankers: Rankers,
    query_vector: Callable[[], Sequence[float]],
) -> Ranked:
    pool = r.pool()
    lists = dict(r.lists)
    if not pool:
        return Ranked([], {}, lists, "empty")
    similarity = index.similarities(query_vector(), pool)
    by_similarity = sorted(pool, key=lambda i: (-similarity.get(i, -1.0), i))
    dropped: list[DroppedAsset] = []
    if len(pool) <= HANDFUL:
        route = "fetch_whole"
    elif len(pool) <= HUNDREDS and rankers.llm is not None:
        route = "llm_filter"
        documents = _documents(r, by_similarity)
        kept = set(llm_filter(rankers.llm, r.question, documents, rankers.count))
        dropped += [
            DroppedAsset(asset_id=i, reason="the LLM relevance filter judged it off topic", stage="routing")
            for i in by_similarity
            if i not in kept
        ]
        lists = {name: [i for i in ids if i in kept] for name, ids in lists.items()}
        by_similarity = [i for i in by_similarity if i in kept]
    elif len(pool) <= HUNDREDS:
        route = "rerank"
    else:
        route = "vector_rerank"
        dropped += [
            DroppedAsset(asset_id=i, reason=f"below the top {HUNDREDS} by similarity", stage="routing")
            for i in by_similarity[HUNDREDS:]
        ]
        keep = set(by_similarity[:HUNDREDS])
        lists = {name: [i for i in ids if i in keep] for name, ids in lists.items()}
        by_similarity = by_similarity[:HUNDREDS]
    lists["pool_vector"] = by_similarity
    # BM25 within the pool: with pool_vector, the fused BM25 + vector rerank the local backend
    # has in place of a reranking model, and a keyword rank for what the traversals brought in.
    pool_set = frozenset(by_similarity)
    lists["pool_keyword"] = [i for i, _ in index.keyword_search(r.question, pool_set, len(pool_set))]
    fused = reciprocal_rank_fusion(lists, weights={n: WEIGHTS.get(n, 0.5) for n in lists}, k=RRF_K)
    top = [key for key, _, _ in fused[:RERANK_DEPTH]]
    if rankers.reranker is not None and route != "fetch_whole":
        lists["rerank"] = [i for i, _ in rankers.reranker.rerank(r.question, _documents(r, top))]
    if rankers.llm is not None and rankers.llm_rank and top:
        lists["llm"] = llm_rank(rankers.llm, r.question, _documents(r, top), rankers.count)
    if "rerank" in lists or "llm" in lists:
        fused = reciprocal_rank_fusion(lists, weights={n: WEIGHTS.get(n, 0.5) for n in lists}, k=RRF_K)
    ids = [key for key, _, _ in fused]
    dropped += [
        DroppedAsset(asset_id=i, reason=f"ranked below the top {RENDER_CAP} candidates", stage="routing")
        for i in ids[RENDER_CAP:]
    ]
    ids = ids[:RENDER_CAP]
    return Ranked(ids, {key: score for key, score, _ in fused}, lists, route, dropped)


def _documents(r: Retrieval, ids: Sequence[str]) -> list[tuple[str, str]]:
    """Short bodies, in the order of `ids`: rank on short bodies, render detail for survivors."""
    assets = r.fetch(ids)
    return [(i, embedding_text(assets[i])) for i in ids if i in assets]
