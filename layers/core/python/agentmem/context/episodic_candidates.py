"""This session's events as packing candidates, ranked by relevance to the query and recency."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from agentmem.context.text import NearDuplicates, event_text, leading_sentences, shingle_set, words
from agentmem.model.beliefs import Belief
from agentmem.model.events import Event
from agentmem.packing.model import Candidate, Dropped

RRF_K = 60
SHORT_CHARS = 240
MAX_CANDIDATES = 150
WEIGHTS = {"relevance": 1.0, "recency": 0.6}

BlobReader = Callable[[Event], str]


# BM25+ (Lv & Zhai, 2011) with the usual constants. BM25+ keeps every IDF positive: in a
# session of a few events, BM25 scores a word that half of them share as exactly zero.
K1, B, DELTA = 1.5, 0.75, 1.0


def relevance_ranks(
    events: Sequence[Event], query: str, terms_of: Callable[[Event], Counter[str]]
) -> dict[str, int] | None:
    """BM25+ rank of each event that shares a word with the query; None when none does, so the
    caller falls back to recency alone instead of fusing a ranker that knows nothing.

    Scored here rather than with rank-bm25, which rebuilds every event's term counts on every
    read: events never change, so their counts are cached, and only the query's terms are scored."""
    terms = list(dict.fromkeys(words(query)))
    counts = [terms_of(e) for e in events]
    matching = [i for i, c in enumerate(counts) if any(t in c for t in terms)]
    if not matching:
        return None
    n = len(events)
    lengths = [c.total() for c in counts]
    average = (sum(lengths) / n) or 1.0
    idf = {t: math.log((n + 1) / df) for t in terms if (df := sum(1 for c in counts if t in c))}
    scored = []
    for i in matching:
        norm = K1 * (1 - B + B * lengths[i] / average)
        score = sum(
            weight * (DELTA + counts[i][t] * (K1 + 1) / (counts[i][t] + norm))
            for t, weight in idf.items()
            if t in counts[i]
        )
        scored.append((-score, events[i].seq, events[i].event_id))
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


def standing_beliefs(event: Event, stated: StatedBy) -> list[Belief]:
    """The current beliefs that say everything `event` says, or [] when it says more (or said a
    value that has since changed): only then is the event redundant next to them."""
    pairs = stated.get(event.event_id, [])
    if not pairs or any(value != belief.value for belief, value in pairs):
        return []
    covering = list({belief.doc_id: belief for belief, _ in pairs}.values())
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


@dataclass(frozen=True)
class SessionRanking:
    """Each event's words, and the BM25 rank of those that share a word with the query (None
    when none does). It does not depend on beliefs, so it is computed while they are searched."""

    tokens: dict[str, list[str]]
    relevance: dict[str, int] | None


@lru_cache(maxsize=65_536)
def _event_words(event_id: str, text: str) -> tuple[tuple[str, ...], Counter[str]]:
    # Keyed by the event id and its text: events are immutable, so a cached entry never goes stale.
    w = tuple(words(text))
    return w, Counter(w)


def clear_word_cache() -> int:
    """Empty the per-event word cache (erasure); returns how many events it held."""
    held = _event_words.cache_info().currsize
    _event_words.cache_clear()
    return held


def rank_session(events: Sequence[Event], query: str) -> SessionRanking:
    cached = {e.event_id: _event_words(e.event_id, event_text(e)) for e in events}
    tokens = {event_id: list(w) for event_id, (w, _) in cached.items()}
    return SessionRanking(tokens, relevance_ranks(events, query, lambda e: cached[e.event_id][1]))


def episodic_candidates(
    events: Sequence[Event],
    ranking: SessionRanking,
    beliefs: Sequence[Belief],
    *,
    read_blob: BlobReader,
    budget: int,
) -> tuple[list[Candidate], list[Dropped]]:
    """Drop what already stands as a belief, rank the rest, collapse near-duplicates among the
    best MAX_CANDIDATES (a budget cannot place more, and pairwise comparison is quadratic)."""
    dropped: list[Dropped] = []
    kept: list[Event] = []
    stated = statements_by_event(beliefs)
    for event in sorted(events, key=lambda e: -e.seq):  # newest first
        covering = standing_beliefs(event, stated)
        if covering:
            ids = ", ".join(b.doc_id for b in covering)
            dropped.append(Dropped(item_id(event), "episodic", f"stands as belief {ids}"))
        else:
            kept.append(event)
    tokens, relevance = ranking.tokens, ranking.relevance
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
