"""This session's events as packing candidates, ranked by relevance to the query and recency."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from agentmem.context.session_window import EventTerms
from agentmem.context.text import NearDuplicates, event_text, leading_sentences, with_head, words
from agentmem.model.beliefs import Belief
from agentmem.model.events import Event
from agentmem.packing.model import Candidate, Dropped

RRF_K = 60
SHORT_CHARS = 240
MAX_CANDIDATES = 150
WEIGHTS = {"relevance": 1.0, "recency": 0.6}
# In one ranking with the other sources (`matched` given), an event's relevance is the score its
# passages earned in the history search; recency only breaks ties between events that match
# about as well, and ranks the rest, which the search did not find, after everything it did.
POOLED_WEIGHTS = {"keyword": 0.5, "recency": 0.25}

BlobReader = Callable[[Event], str]


# BM25+ (Lv & Zhai, 2011) with the usual constants. BM25+ keeps every IDF positive: in a
# session of a few events, BM25 scores a word that half of them share as exactly zero.
K1, B, DELTA = 1.5, 0.75, 1.0


def relevance_ranks(window: Sequence[EventTerms], query: str) -> dict[str, int] | None:
    """BM25+ rank of each event that shares a word with the query; None when none does, so the
    caller falls back to recency alone instead of fusing a ranker that knows nothing.

    Scored here rather than with rank-bm25, which rebuilds every event's term counts on every
    read: events never change, so their counts are kept with the window, and only the query's
    terms are scored. Corpus statistics (idf, average length) are the window's."""
    terms = list(dict.fromkeys(words(query)))
    wanted = set(terms)
    # One pass over the window, one set intersection per event: this loop runs on every read.
    matching = [(t, present) for t in window if (present := wanted & t.counts.keys())]
    if not matching:
        return None
    n = len(window)
    average = (sum(t.length for t in window) / n) or 1.0
    df = Counter(term for _, present in matching for term in present)
    idf = {term: math.log((n + 1) / df[term]) for term in terms if df[term]}
    scored = []
    for t, present in matching:
        norm = K1 * (1 - B + B * t.length / average)
        score = sum(
            weight * (DELTA + t.counts[term] * (K1 + 1) / (t.counts[term] + norm))
            for term, weight in idf.items()  # in query order: the same sum, bit for bit, every read
            if term in present
        )
        scored.append((-score, t.event.seq, t.event.event_id))
    return {event_id: rank for rank, (_, _, event_id) in enumerate(sorted(scored), start=1)}


StatedBy = dict[str, list[tuple[Belief, str]]]


def statements_by_event(beliefs: Sequence[Belief]) -> StatedBy:
    """event id -> the current beliefs it stated, with the value it stated (built once per read)."""
    stated: StatedBy = {}
    for belief in beliefs:
        if belief.current:
            for p in belief.provenance:
                stated.setdefault(p.event_id, []).append((belief, p.value))
    return stated


def standing_beliefs(terms: EventTerms, stated: StatedBy) -> list[Belief]:
    """The current beliefs that say everything the event says, or [] when it says more (or said a
    value that has since changed): only then is the event redundant next to them."""
    event = terms.event
    pairs = stated.get(event.event_id, [])
    if not pairs or any(value != belief.value for belief, value in pairs):
        return []
    covering = list({belief.doc_id: belief for belief, _ in pairs}.values())
    if isinstance(event.content, dict):
        return covering if set(event.content) <= {b.key for b in covering} else []
    stated_words = sum(len(words(b.text)) for b in covering)
    return covering if terms.length <= 2 * stated_words else []


def event_candidate(event: Event, score: float, *, inline: str | None) -> Candidate:
    # The section's heading names the session: each line saying it again only spends budget.
    head = f"[#{event.seq} r{event.round} {event.agent}/{event.kind}]"
    text = event_text(event)
    if event.blob is not None:
        ref = event.blob
        # A content hash, not the storage uri: prompts must not carry local paths or bucket names.
        fetch = f"GET /v1/sessions/{event.session_id}/events?after={event.seq - 1}&limit=1&resolve_blobs=true"
        pointer = (
            f"{head} stored by reference: sha256:{ref.sha256[:16]} ({ref.bytes:,} bytes, {ref.media_type};"
            f" fetch with {fetch})"
        )
        first_line = ref.preview.splitlines()[0] if ref.preview else ""
        short = f"{pointer}; begins: {first_line}" if first_line else pointer
        renders = ((f"{head} {inline}",) if inline else ()) + (short, head)
    else:
        lead = leading_sentences(text, SHORT_CHARS)
        renders = (f"{head} {text}",) + ((f"{head} {lead}",) if lead and lead != text else ()) + (head,)
    return Candidate(
        item_id=item_id(event),
        source="episodic",
        score=score,
        renders=renders,
        meta={
            "event_id": event.event_id,
            "session_id": event.session_id,
            "seq": event.seq,
            "agent": event.agent,
            "stored": event.stored,
        },
    )


def standalone_event(candidate: Candidate) -> tuple[str, ...]:
    """An event candidate's renderings for a line outside its session's section: each names
    the session again."""
    meta = candidate.meta
    grouped = f"[#{meta['seq']} "
    whole = f"[{meta['session_id']} #{meta['seq']} "
    return with_head(candidate.renders, grouped, whole)


@dataclass(frozen=True)
class SessionRanking:
    """The BM25 rank of the window's events that share a word with the query (None when none
    does). It does not depend on beliefs, so it is computed while they are searched."""

    relevance: dict[str, int] | None


def rank_session(window: Sequence[EventTerms], query: str) -> SessionRanking:
    return SessionRanking(relevance_ranks(window, query))


def episodic_candidates(
    window: Sequence[EventTerms],
    ranking: SessionRanking,
    beliefs: Sequence[Belief],
    *,
    read_blob: BlobReader,
    budget: int,
    matched: Mapping[str, float] | None = None,
) -> tuple[list[Candidate], list[Dropped]]:
    """Drop what already stands as a belief, rank the rest, collapse near-duplicates among the
    best MAX_CANDIDATES (a budget cannot place more, and pairwise comparison is quadratic).
    `window` is oldest first, as SessionWindow keeps it. `matched`: event id -> the score its
    passages earned in the read's one ranking (then the events are scored on that scale)."""
    dropped: list[Dropped] = []
    kept: list[EventTerms] = []
    stated = statements_by_event(beliefs)
    for terms in reversed(window):  # newest first
        covering = standing_beliefs(terms, stated) if terms.event.event_id in stated else []
        if covering:
            ids = ", ".join(b.doc_id for b in covering)
            dropped.append(Dropped(item_id(terms.event), "episodic", f"stands as belief {ids}"))
        else:
            kept.append(terms)
    relevance = ranking.relevance
    scored: list[tuple[float, EventTerms]] = []
    for recency, terms in enumerate(kept, start=1):
        rel = relevance.get(terms.event.event_id) if relevance else None
        if matched is None:
            score = WEIGHTS["recency"] / (RRF_K + recency) + (
                WEIGHTS["relevance"] / (RRF_K + rel) if rel else 0.0
            )
        else:
            score = pooled_score(matched.get(terms.event.event_id), rel, recency)
        scored.append((score, terms))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].event.seq))
    chosen: list[tuple[float, Event]] = []
    # Shingle frequencies among the events likely to be compared, so prefixes start rare.
    likely = Counter(shingle for _, terms in scored[: 2 * MAX_CANDIDATES] for shingle in terms.shingles)
    seen = NearDuplicates(frequency=likely)
    for score, terms in scored:
        event = terms.event
        if len(chosen) >= MAX_CANDIDATES:
            dropped.append(
                Dropped(item_id(event), "episodic", f"ranked below the session's top {MAX_CANDIDATES}")
            )
            continue
        twin = seen.add(event.seq, terms.shingles)
        if twin is not None:
            dropped.append(Dropped(item_id(event), "episodic", f"near-duplicate of #{twin}"))
            continue
        chosen.append((score, event))
    candidates = []
    for score, event in chosen:
        rel = relevance.get(event.event_id) if relevance else None
        # A blob is inlined only when the query is about it and it could possibly fit.
        inline = (
            read_blob(event) if event.blob and rel is not None and event.blob.bytes // 4 <= budget else None
        )
        candidates.append(event_candidate(event, score, inline=inline))
    return candidates, dropped


def pooled_score(matched: float | None, keyword_rank: int | None, recency: int) -> float:
    """An event's score in one ranking with the history passages and the beliefs: what its
    passages earned there, else its keyword rank in the window (an event not projected yet), plus
    a recency term too small to lift an unmatched event over a matched one."""
    if matched is not None:
        relevance = matched
    elif keyword_rank is not None:
        relevance = POOLED_WEIGHTS["keyword"] / (RRF_K + keyword_rank)
    else:
        relevance = 0.0
    return relevance + POOLED_WEIGHTS["recency"] / (RRF_K + recency)


def item_id(event: Event) -> str:
    return f"event:{event.session_id}:{event.seq}"
