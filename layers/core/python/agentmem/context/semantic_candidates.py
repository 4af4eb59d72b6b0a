"""Beliefs as packing candidates: found by meaning and by keyword, fused with weighted RRF."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor, Future

from agentmem.context.retirements import Retired, Retirement, later_for_belief
from agentmem.model.beliefs import Belief, BeliefHit
from agentmem.packing.fusion import reciprocal_rank_fusion
from agentmem.packing.model import Candidate
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fold import sessions_of_last_run

SEARCH_K = 30
# The vector ranker understands paraphrase; BM25 only rewards shared words, so it counts less.
WEIGHTS = {"vector": 1.0, "keyword": 0.5}


def fuse(result_lists: dict[str, list[BeliefHit]]) -> list[tuple[float, Belief]]:
    """Weighted reciprocal rank fusion; a belief found by both rankers sums both terms."""
    beliefs = {hit.belief.doc_id: hit.belief for hits in result_lists.values() for hit in hits}
    rankings = {ranker: [hit.belief.doc_id for hit in hits] for ranker, hits in result_lists.items()}
    return [(score, beliefs[doc]) for doc, score, _ in reciprocal_rank_fusion(rankings, weights=WEIGHTS)]


def change_note(belief: Belief) -> str:
    """ "changed from cautious (S1) to aggressive (S2)" for a flagged belief, else ""."""
    if not belief.flag or belief.previous is None:
        return ""
    before = ", ".join(belief.previous.session_ids)
    now = ", ".join(sessions_of_last_run(belief)) or "?"
    return f"changed from {belief.previous.value} ({before}) to {belief.value} ({now})"


MAX_LATER_LABELS = 2


def belief_candidate(belief: Belief, score: float, later: Sequence[Retirement] = ()) -> Candidate:
    """`later`: what passages said after the belief was last stated ended its value."""
    note = change_note(belief)
    flagged = f" ⚠ {note}." if note else ""
    flagged += "".join(f" ⚠ {r.label}." for r in later[:MAX_LATER_LABELS])
    stated = ", ".join(sessions_of_last_run(belief))
    full = f"**{belief.key}**: {belief.text} (v{belief.version}; stated in {stated}){flagged}"
    short = f"**{belief.key}**: {belief.value}{flagged}"
    identity = f"**{belief.key}**" + (" ⚠ contradicted" if belief.flag else "")
    return Candidate(
        item_id=f"belief:{belief.doc_id}",
        source="semantic",
        score=score,
        renders=(full, short, identity),
        meta={"doc_id": belief.doc_id, "key": belief.key, "version": belief.version, "flag": belief.flag},
    )


def search_keywords(
    pool: Executor, index: BeliefIndex, subject_id: str, query: str
) -> Future[list[BeliefHit]]:
    """The keyword half of the belief search, on a worker thread: it needs no embedding, so it
    runs while the query is embedded."""
    return pool.submit(index.keyword_search, subject_id, query, SEARCH_K)


def semantic_candidates(
    index: BeliefIndex,
    embedder: Embedder,
    subject_id: str,
    query: str,
    vector: Sequence[float] | None = None,
    keyword: Future[list[BeliefHit]] | None = None,
) -> tuple[list[Candidate], list[Belief]]:
    """`vector` is the query's embedding when the caller already has it (the history source
    searches with the same one); `keyword`, the keyword search (`search_keywords`) when the
    caller started it on a worker thread."""
    hits = {
        "vector": index.vector_search(
            subject_id, vector if vector is not None else embedder.embed([query])[0], SEARCH_K
        ),
        "keyword": keyword.result()
        if keyword is not None
        else index.keyword_search(subject_id, query, SEARCH_K),
    }
    fused = fuse(hits)
    return [belief_candidate(b, s) for s, b in fused], [b for _, b in fused]


def with_later_labels(
    candidates: Sequence[Candidate], beliefs: Sequence[Belief], retired: Retired
) -> list[Candidate]:
    """The candidates again, a belief whose value a later passage says is over rendered with
    that passage's sentence: the extractor may never have read it, so no version replaced it."""
    if not retired:
        return list(candidates)
    by_item = {f"belief:{b.doc_id}": b for b in beliefs}
    out: list[Candidate] = []
    for candidate in candidates:
        belief = by_item.get(candidate.item_id)
        later = later_for_belief(belief, retired) if belief is not None else []
        out.append(
            belief_candidate(belief, candidate.score, later) if belief is not None and later else candidate
        )
    return out
