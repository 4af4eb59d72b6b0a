"""This session's events as packing candidates, ranked by relevance to the query and recency."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agentmem.context.text import NearDuplicates, event_text, leading_sentences, shingle_set, words
from agentmem.model.beliefs import Belief
from agentmem.model.events import Event
from agentmem.packing.model import Candidate, Dropped

RRF_K = 60
SHORT_CHARS = 240
MAX_CANDIDATES = 150
WEIGHTS = {"relevance": 1.0, "recency": 0.6}

BlobReader = Callable[[Event], str]


def relevance_ranks(
    events: Sequence[Event], query: str, tokens: dict[str, list[str]]
) -> dict[str, int] | None:
    """BM25 rank of each event that shares a word with the query; None when none does, so the
    caller falls back to recency alone instead of fusing a ranker that knows nothing."""
    from rank_bm25 import BM25Plus

    terms = words(query)
    corpus = [tokens[e.event_id] or ["_"] for e in events]
    matching = [i for i, doc in enumerate(corpus) if not set(terms).isdisjoint(doc)]
    if not matching:
        return None
    # BM25Plus keeps every IDF positive: in a session of a few events, BM25Okapi scores a word
    # that half the events share as exactly zero.
    scores = BM25Plus(corpus).get_scores(terms)
    scored = sorted((-float(scores[i]), events[i].seq, events[i].event_id) for i in matching)
    return {event_id: rank for rank, (_, _, event_id) in enumerate(scored, start=1)}


def standing_beliefs(event: Event, beliefs: Sequence[Belief]) -> list[Belief]:
    """The current beliefs that say everything `event` says, or [] when it says more (or said a
    value that has since changed): only then is the event redundant next to them."""
    covering = [b for b in beliefs if b.current and any(p.event_id == event.event_id for p in b.provenance)]
    if not covering or any(
        next(p for p in b.provenance if p.event_id == event.event_id).value != b.value for b in covering
    ):
        return []
    if isinstance(event.content, dict):
        return covering if set(event.content) <= {b.key for b in covering} else []
    stated_words = sum(len(words(b.text)) for b in covering)
    return covering if len(words(event_text(event))) <= 2 * stated_words else []


def event_candidate(event: Event, score: float, *, inline: str | None) -> Candidate:
    head = f"[{event.session_id} #{event.seq} r{event.round} {event.agent}/{event.kind}]"
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
        meta={"event_id": event.event_id, "seq": event.seq, "agent": event.agent, "stored": event.stored},
    )


def episodic_candidates(
    events: Sequence[Event], query: str, beliefs: Sequence[Belief], *, read_blob: BlobReader, budget: int
) -> tuple[list[Candidate], list[Dropped]]:
    """Drop what already stands as a belief, rank the rest, collapse near-duplicates among the
    best MAX_CANDIDATES (a budget cannot place more, and pairwise comparison is quadratic)."""
    dropped: list[Dropped] = []
    kept: list[Event] = []
    for event in sorted(events, key=lambda e: -e.seq):  # newest first
        covering = standing_beliefs(event, beliefs)
        if covering:
            ids = ", ".join(b.doc_id for b in covering)
            dropped.append(Dropped(item_id(event), "episodic", f"stands as belief {ids}"))
        else:
            kept.append(event)
    tokens = {e.event_id: words(event_text(e)) for e in kept}  # once: ranking and dedupe both use them
    relevance = relevance_ranks(kept, query, tokens)
    scored: list[tuple[float, Event]] = []
    for recency, event in enumerate(kept, start=1):
        rel = relevance.get(event.event_id) if relevance else None
        score = WEIGHTS["recency"] / (RRF_K + recency) + (
            WEIGHTS["relevance"] / (RRF_K + rel) if rel else 0.0
        )
        scored.append((score, event))
    scored.sort(key=lambda pair: (-pair[0], -pair[1].seq))
    chosen: list[tuple[float, Event]] = []
    seen = NearDuplicates()
    for score, event in scored:
        if len(chosen) >= MAX_CANDIDATES:
            dropped.append(
                Dropped(item_id(event), "episodic", f"ranked below the session's top {MAX_CANDIDATES}")
            )
            continue
        twin = seen.add(event.seq, shingle_set(tokens[event.event_id]))
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


def item_id(event: Event) -> str:
    return f"event:{event.session_id}:{event.seq}"
