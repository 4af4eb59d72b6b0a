"""Beliefs as packing candidates: found by meaning and by keyword, fused with weighted RRF."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import replace
from typing import NamedTuple

from agentmem.context.retirements import Retired, Retirement, later_for_belief
from agentmem.model.beliefs import Belief, BeliefHit
from agentmem.packing.fusion import RRF_K, content_terms, reciprocal_rank_fusion
from agentmem.packing.model import Candidate
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fold import sessions_of_last_run

SEARCH_K = 30
# The vector ranker understands paraphrase; BM25 only rewards shared words, so it counts less.
WEIGHTS = {"vector": 1.0, "keyword": 0.5}
POOLED_WEIGHTS = {"vector": 1.0, "keyword": 1.0}  # in one ranking with the passages (among_passages)


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


class FoundBeliefs(NamedTuple):
    candidates: list[Candidate]  # best first
    beliefs: list[Belief]  # the same order
    similarity: dict[str, float]  # doc id -> cosine to the query, for those vector search found
    keyword_ranks: dict[str, int]  # doc id -> rank under the keyword search, for those it found


def among_passages(found: FoundBeliefs, passage_similarity: Sequence[float], query: str) -> FoundBeliefs:
    """The beliefs rescored in one ranking with the passages: a belief's vector term is its rank
    by cosine among the passages and the beliefs together, so a belief that matches the query
    worse than forty passages ranks like the forty-first passage, not like the best of the few
    beliefs a subject has. Its keyword term is its rank among the beliefs by how many of the
    query's telling words (`telling_terms`) its key and sentence say (BM25 rank breaking ties;
    the scores of two indexes do not compare, ranks within each do), at the passages' full
    keyword weight: a belief that says what the query asks about ranks with the passage that
    says it best."""
    cosines = sorted(-c for c in [*passage_similarity, *found.similarity.values()])
    vector = {doc: bisect_left(cosines, -cosine) + 1 for doc, cosine in found.similarity.items()}
    said = {b.doc_id: content_terms(f"{b.key.replace('_', ' ')} {b.text}") for b in found.beliefs}
    wanted = telling_terms(content_terms(query), list(said.values()))
    covered = {doc: len(wanted & terms) / len(wanted) if wanted else 0.0 for doc, terms in said.items()}
    # A belief BM25 found only for a word every belief says matches nothing the query asks.
    matching = [b.doc_id for b in found.beliefs if covered[b.doc_id] > 0]
    matching.sort(key=lambda doc: (-covered[doc], found.keyword_ranks.get(doc, len(found.beliefs) + 1), doc))
    keyword = {doc: rank for rank, doc in enumerate(matching, start=1)}
    scores = {
        doc: sum(
            POOLED_WEIGHTS[r] / (RRF_K + ranks[doc])
            for r, ranks in (("vector", vector), ("keyword", keyword))
            if doc in ranks
        )
        for doc in {*vector, *keyword}
    }
    for belief in found.beliefs:
        if key_named(belief.key, wanted):
            scores[belief.doc_id] = max(scores.get(belief.doc_id, 0.0), NAMED_KEY_SCORE)
    with_changed_members(found.beliefs, scores)
    rescored = [
        replace(c, score=scores.get(b.doc_id, 0.0))
        for c, b in zip(found.candidates, found.beliefs, strict=True)
    ]
    return found._replace(candidates=rescored)


COMMON_SHARE = 0.5  # a query term more than this share of the found beliefs say tells none apart
MIN_BELIEFS_FOR_COMMON = 3


# Both rankers' first place: a belief whose key the query names is the query's answer for that
# attribute, and ranks with the passage that matches best.
NAMED_KEY_SCORE = sum(POOLED_WEIGHTS.values()) / (RRF_K + 1)


def key_named(key: str, wanted: set[str]) -> bool:
    """True when every word of the key ("risk_tolerance") is among the query's telling terms."""
    terms = content_terms(key.replace("_", " "))
    return bool(terms) and terms <= wanted


def telling_terms(wanted: set[str], said: Sequence[set[str]]) -> set[str]:
    """The query's terms without those most of the found beliefs say. Every belief names its
    subject, so a query naming the subject ("What does the caller do?") covers each belief a
    little through the name alone, and a coverage ranking would put every belief beside the
    passage that answers; a word most beliefs share tells them apart no more than BM25's IDF
    would let it."""
    if len(said) < MIN_BELIEFS_FOR_COMMON:
        return wanted
    return {t for t in wanted if sum(t in terms for terms in said) <= COMMON_SHARE * len(said)}


def with_changed_members(beliefs: Sequence[Belief], scores: dict[str, float]) -> None:
    """A member of a set-valued key that changed (flagged: "dislikes single stocks" became "wants
    single stocks") ranks just below the key's best member: a reader shown "likes index funds"
    without the change beside it reads a stale picture of the same attribute. Only flagged
    members come along, so a key with many members (tastes) does not fill the read."""
    best: dict[str, float] = {}
    for belief in beliefs:
        if belief.member:
            best[belief.key] = max(best.get(belief.key, 0.0), scores.get(belief.doc_id, 0.0))
    for belief in beliefs:
        if belief.member and belief.flag:
            scores[belief.doc_id] = max(scores.get(belief.doc_id, 0.0), best[belief.key] * (1 - 1e-9))


def semantic_candidates(
    index: BeliefIndex,
    embedder: Embedder,
    subject_id: str,
    query: str,
    vector: Sequence[float] | None = None,
    keyword: Future[list[BeliefHit]] | None = None,
) -> FoundBeliefs:
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
    return FoundBeliefs(
        [belief_candidate(b, s) for s, b in fused],
        [b for _, b in fused],
        {h.belief.doc_id: h.score for h in hits["vector"]},
        {h.belief.doc_id: rank for rank, h in enumerate(hits["keyword"], start=1)},
    )


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
