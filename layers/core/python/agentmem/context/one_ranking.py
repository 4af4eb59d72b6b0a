"""One ranking for a read: the reader's session, the earlier sessions and the beliefs compete for
the budget on one scale, the query's, and no source is owed a share of it.

Two rules settle what the scale alone does not:
- A belief is a projection of a passage. When the query matches the passage the belief came from
  at least as well as the belief's own sentence, the belief never outranks it: the passage, which
  holds every word, takes the place, and the belief goes (or, when it carries a contradiction
  flag the passage cannot show, follows it).
- Two statements that say the same thing with one span changed are versions of one fact
  (versions.py): the later one takes the better of the two places, and the earlier one follows
  it, labelled with the later sentence, so a reader never meets an old value unlabelled first.
  This needs no rule or model to have read either statement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from agentmem.context.episodic_candidates import item_id as event_item_id
from agentmem.context.history_candidates import HistoryHits, HistorySearch
from agentmem.context.history_candidates import item_id as passage_item_id
from agentmem.context.text import event_text
from agentmem.context.versions import Statement, Version, find_versions, sentences_words
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.events import Event
from agentmem.packing.model import Candidate
from agentmem.semantic.fold import last_stated

BELOW = 0.999  # just below the item it follows: above whatever ranked below that one
VERSION_POOL = 60  # the best-ranked statements compared for versions (pairwise: keep it small)
MAX_QUOTE_CHARS = 240
SIMILARITY_TIE = 0.01  # cosines closer than this match the query equally (the same text embeds a hair apart)


@dataclass(frozen=True)
class Ranked:
    candidates: list[Candidate]
    versions: list[Version]


def stating_events(belief: Belief) -> list[str]:
    """The events that stated the belief's current value (its provenance also holds the ones a
    later version replaced)."""
    value = normalise_value(belief.value)
    return [p.event_id for p in belief.provenance if normalise_value(p.value) == value]


def capped_beliefs(
    beliefs: Sequence[Belief],
    belief_similarity: Mapping[str, float],
    event_similarity: Mapping[str, tuple[float, int]],
) -> set[str]:
    """Doc ids of the beliefs whose source passage matches the query better than the belief
    does (a belief vector search did not find matches at 0) and holds at least as many words:
    a passage shorter than the belief's sentence ("Cautious.") does not say what the belief
    says. On a tie, as when the belief's sentence is its passage's, the belief stands for the
    passage: it also carries the version. A flagged belief is never capped: what changed, and
    from what, is its own."""
    capped: set[str] = set()
    for belief in beliefs:
        if belief.flag:
            continue  # the change and the value it replaced are said by no passage
        own = belief_similarity.get(belief.doc_id, 0.0) + SIMILARITY_TIE
        length = len(sentences_words(belief.text))
        sources = [event_similarity[e] for e in stating_events(belief) if e in event_similarity]
        if any(cosine > own and words >= length for cosine, words in sources):
            capped.add(belief.doc_id)
    return capped


def settle_beliefs(
    candidates: Sequence[Candidate], beliefs: Sequence[Belief], capped: set[str]
) -> list[Candidate]:
    """Each capped belief whose source passage is among the candidates is ranked just below it."""
    by_event: dict[str, Candidate] = {}
    for c in candidates:
        event_id = c.meta.get("event_id")
        known = by_event.get(event_id) if isinstance(event_id, str) else None
        if c.source != "semantic" and isinstance(event_id, str) and (known is None or c.score > known.score):
            by_event[event_id] = c
    by_doc = {f"belief:{b.doc_id}": b for b in beliefs if b.doc_id in capped}
    out: list[Candidate] = []
    for c in candidates:
        belief = by_doc.get(c.item_id)
        sources = [
            by_event[p.event_id] for p in (belief.provenance if belief else []) if p.event_id in by_event
        ]
        if belief is None or not sources:
            out.append(c)
            continue
        source = max(sources, key=lambda s: s.score)
        # Kept, below it: a long passage may not fit where its one-line belief still does.
        out.append(replace(c, score=min(c.score, source.score * BELOW)))
    return out


def where(candidate: Candidate) -> str:
    meta = candidate.meta
    if candidate.source == "semantic" and "key" in meta:
        return f"the current {meta['key']}"
    if "session_id" in meta and "seq" in meta:
        return f"{meta['session_id']} #{meta['seq']}"
    if "seq" in meta:
        return f"#{meta['seq']}"
    return candidate.item_id


def quoted(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 1].rstrip() + "…"


def labelled(candidate: Candidate, label: str) -> Candidate:
    """The candidate with `label` after each detailed rendering; the identity line says no value,
    so it needs none."""
    *detail, identity = candidate.renders
    if not detail:
        return candidate
    renders = (*(f"{r} ⚠ {label}" for r in detail), identity)
    return replace(candidate, renders=renders, meta={**candidate.meta, "superseded": True})


def order_versions(
    candidates: Sequence[Candidate], statements: Mapping[str, Statement]
) -> tuple[list[Candidate], list[Version]]:
    """The candidates with each version pair among the best VERSION_POOL statements settled: the
    newer takes the better score, and the older ranks below it (never higher than it was),
    labelled with the newer sentence."""
    ranked = sorted(candidates, key=lambda c: (-c.score, c.item_id))
    pool = [statements[c.item_id] for c in ranked if c.item_id in statements][:VERSION_POOL]
    versions = find_versions(pool)
    if not versions:
        return list(candidates), []
    by_id = {c.item_id: c for c in candidates}
    for version in versions:
        old, new = by_id[version.older], by_id[version.newer]
        top = max(old.score, new.score)
        by_id[version.newer] = replace(new, score=top)
        old = replace(old, score=min(old.score, top * BELOW))  # an old version never rises
        if not old.meta.get("superseded"):  # an extracted value's label already says what replaced it
            old = labelled(old, f"superseded by {where(new)}: “{quoted(version.quote)}”")
        by_id[version.older] = old
    return [by_id[c.item_id] for c in candidates], versions


def rank_together(
    candidates: Sequence[Candidate],
    beliefs: Sequence[Belief],
    capped: set[str],
    statements: Mapping[str, Statement],
) -> Ranked:
    ordered, versions = order_versions(settle_beliefs(candidates, beliefs, capped), statements)
    return Ranked(ordered, versions)


def event_similarity(hits: HistoryHits) -> dict[str, tuple[float, int]]:
    """Event id -> (the best cosine of its passages to the query, that passage's word count),
    for the events vector search found."""
    best: dict[str, tuple[float, int]] = {}
    for _, passage in hits.ranked:
        score = hits.similarity.get(passage.passage_id)
        if score is not None and score > best.get(passage.event_id, (-1.0, 0))[0]:
            best[passage.event_id] = (score, len(sentences_words(passage.text)))
    return best


def statements_of(
    history: HistorySearch | None, events: Sequence[Event], beliefs: Sequence[Belief]
) -> dict[str, Statement]:
    """Item id -> what it says and when, for every candidate that could be a version of another."""
    out: dict[str, Statement] = {}
    if history is not None:
        for _, p in history.result().ranked:
            out[passage_item_id(p)] = Statement(passage_item_id(p), p.text, (p.stated_at, p.seq), p.event_id)
    for e in events:
        key = event_item_id(e)
        out[key] = Statement(key, event_text(e), (e.created_at, e.seq), e.event_id)
    for b in beliefs:
        if b.provenance:
            last = b.provenance[-1]
            key = f"belief:{b.doc_id}"
            out[key] = Statement(key, b.text, (last_stated(b), last.seq), last.event_id)
    return out


def one_ranking(
    candidates: list[Candidate],
    beliefs: list[Belief],
    capped: set[str],
    history: HistorySearch | None,
    events: list[Event],
    notes: list[str],
) -> list[Candidate]:
    """Every source's candidates settled into one ranking (one_ranking.py)."""
    together = rank_together(candidates, beliefs, capped, statements_of(history, events, beliefs))
    if together.versions:
        notes.append(
            f"versions: {len(together.versions)} statement(s) said otherwise later, labelled"
            " and ranked after the later one"
        )
    return together.candidates
