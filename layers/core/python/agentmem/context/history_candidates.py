"""The subject's earlier sessions as packing candidates: passages of the log found by meaning and
by keyword, fused with weighted RRF, checked against the current beliefs.

One answer per question still holds. A passage that states a value a current belief has since
replaced is labelled with the current value, and one that says what a later passage says is over
quotes that passage (retirements.py); a passage that says nothing a shown belief does not
already say (the belief's provenance cites its event) is left out. So history never contradicts
a current belief unlabelled, and never repeats one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field, replace

from agentmem.context.follow_up import (
    BELOW,
    FOLLOW_FROM,
    FOLLOW_K,
    FollowUp,
    follow_beliefs,
    follow_up,
    ranked_after,
)
from agentmem.context.history_checks import CurrentBeliefs, check, says_no_more, superseded_label
from agentmem.context.retirements import (
    Retired,
    Retirement,
    in_beliefs,
    later_for_passage,
    retirements,
    said_over,
)
from agentmem.context.superseded import mentioned, replaced_values
from agentmem.context.text import NearDuplicates, leading_sentences, shingle_set, with_head, words
from agentmem.model.beliefs import Belief
from agentmem.model.passages import Passage, PassageHit
from agentmem.packing.fusion import reciprocal_rank_fusion
from agentmem.packing.model import Candidate, Dropped
from agentmem.ports.semantic import BeliefIndex, PassageIndex

SEARCH_K = 40
# A passage line costs about 30-50 tokens: a big budget can place more than 40 of them, and the
# search is what bounds how many it gets to choose from.
TOKENS_PER_HIT = 30
MAX_SEARCH_K = 200
SHORT_CHARS = 200
# The vector ranker understands paraphrase, BM25 a name or a number. Equal weights, as the plain
# retriever the read must never fall below fuses them: skill search's keyword gate (BM25 weighed
# down while its best hits miss half the query's words) cost 1-2 points of evidence on the
# Switchboard and template conversation sets at every budget (docs/history.md).
FUSION_WEIGHTS = {"vector": 1.0, "keyword": 1.0}


@dataclass(frozen=True)
class HistoryHits:
    """The passages both rankers found, fused best first, with the follow-up's after their hits."""

    ranked: list[tuple[float, Passage]]
    note: str  # how the rankers were weighed
    pending_vectors: int = 0  # the subject's passages vector search could not see yet
    similarity: Mapping[str, float] = field(default_factory=dict)  # passage id -> cosine to the query

    def of_session(self, session_id: str) -> tuple[HistoryHits, dict[str, float]]:
        """These hits without the passages of `session_id`, and each of its events' best fused
        score: a read's own session is the episodic source's, which takes the score its events
        earned in the one ranking."""
        kept = [(score, p) for score, p in self.ranked if p.session_id != session_id]
        own: dict[str, float] = {}
        for score, p in self.ranked:
            if p.session_id == session_id:
                own[p.event_id] = max(score, own.get(p.event_id, 0.0))
        return replace(self, ranked=kept), own

    @property
    def found(self) -> bool:
        return bool(self.ranked)


def search_k(budget: int) -> int:
    """Hits per ranker: SEARCH_K, or as many as the budget could place, up to MAX_SEARCH_K."""
    return min(MAX_SEARCH_K, max(SEARCH_K, budget // TOKENS_PER_HIT))


class HistorySearch:
    """Both rankers over the subject's passages (outside the reader's session unless `own_session`
    is set: then one ranking covers every session, the reader's events taking the scores they
    earn in it), each on a worker thread while the beliefs are searched: the keyword
    search starts at once, and searches once more for what came later of the names its best hits
    say (follow_up.py) while the query is embedded; the vector search starts when the embedding
    is in, and its worker fuses the two and reads what the passages say is over, while the
    beliefs are searched on the caller's thread."""

    def __init__(
        self,
        pool: Executor,
        index: PassageIndex,
        subject_id: str,
        session_id: str,
        query: str,
        budget: int,
        *,
        own_session: bool = False,
    ) -> None:
        self._pool, self._index = pool, index
        self._subject, self._k = subject_id, search_k(budget)
        self._session: str | None = None if own_session else session_id
        self._keyword = pool.submit(self._keywords, query)
        self._hits: Future[HistoryHits] | None = None

    def _keywords(self, query: str) -> tuple[list[PassageHit], int, FollowUp | None, list[PassageHit]]:
        """The keyword hits, then the follow-up of the names the best of them say: both need no
        embedding, so they run while the query is embedded."""
        hits = self._index.keyword_search(self._subject, query, self._k, exclude_session=self._session)
        pending = self._index.pending_count(self._subject)
        chased = follow_up([h.passage for h in hits[:FOLLOW_FROM]], query, self._subject)
        if chased is None:
            return hits, pending, None, []
        later = self._index.keyword_search(
            self._subject, chased.query, FOLLOW_K, exclude_session=self._session
        )
        return hits, pending, chased, later

    def search_vectors(self, vector: Sequence[float]) -> None:
        self._hits = self._pool.submit(self._search, vector)

    def _search(self, vector: Sequence[float]) -> HistoryHits:
        found = self._index.vector_search(self._subject, vector, self._k, exclude_session=self._session)
        # Waiting here cannot starve the pool: the keyword search was submitted first, and a
        # pool hands out work in order, so it runs already or has run.
        keyword, pending, chased, later = self._keyword.result()
        ranked, note = fuse(found, keyword)
        ranked = ranked_after(ranked, later, chased)
        for _, passage in ranked:
            said_over(passage.text)  # cached: the candidates' check then finds it read
        return HistoryHits(ranked, note, pending, {h.passage.passage_id: h.score for h in found})

    def result(self) -> HistoryHits:
        if self._hits is None:
            raise RuntimeError("search_vectors was not called")
        return self._hits.result()

    def said_after(self, beliefs: Sequence[Belief]) -> Future[list[Passage]]:
        """Passages said after one of the best beliefs was last stated that say its value, searched
        on a worker thread while the passages are ranked."""
        return self._pool.submit(self._said_after, beliefs)

    def _said_after(self, beliefs: Sequence[Belief]) -> list[Passage]:
        chased = follow_beliefs(beliefs)
        if chased is None:
            return []
        hits = self._index.keyword_search(
            self._subject, chased.query, FOLLOW_K, exclude_session=self._session
        )
        return chased.said_later(hits)


def fuse(
    vector: Sequence[PassageHit], keyword: Sequence[PassageHit]
) -> tuple[list[tuple[float, Passage]], str]:
    passages = {h.passage.passage_id: h.passage for h in [*vector, *keyword]}
    rankings = {
        "vector": [h.passage.passage_id for h in vector],
        "keyword": [h.passage.passage_id for h in keyword],
    }
    fused = reciprocal_rank_fusion(rankings, weights=FUSION_WEIGHTS)
    ranked = [(score, passages[pid]) for pid, score, _ in fused]
    return ranked, "vector and keyword ranks fused at equal weight"


def grouped_head(seq: object, agent: object) -> str:
    return f"#{seq} {agent}"


def standalone_passage(candidate: Candidate) -> tuple[str, ...]:
    """A passage candidate's renderings for a line with no session heading above it: each
    says the date, the speaker and the session itself."""
    meta = candidate.meta
    grouped = grouped_head(meta["seq"], meta["agent"])
    whole = f"{str(meta['stated_at'])[:10]} {meta['agent']} ({meta['session_id']} #{meta['seq']})"
    return with_head(candidate.renders, grouped, whole)


def passage_candidate(passage: Passage, score: float, labels: Sequence[str]) -> Candidate:
    # The session and its date are the passage's group heading, said once for all its lines:
    # on short turns they cost as many tokens as the words said.
    head = grouped_head(passage.seq, passage.agent)
    label = "".join(f"⚠ {label}. " for label in labels)
    text = f"[stored by reference; begins] {passage.text}" if passage.stored == "blob" else passage.text
    full = f"{head}: {label}{text}"
    lead = leading_sentences(text, SHORT_CHARS)
    shorter = (f"{head}: {label}{lead}",) if lead and lead != text else ()
    # The last rendering is the identity line the packer lists when no detail fits: where in the
    # log it is, with no value that could contradict a current belief.
    renders = (full, *shorter, head)
    return Candidate(
        item_id=item_id(passage),
        source="history",
        score=score,
        renders=renders,
        group=f"{passage.session_id} ({passage.stated_at[:10]})",
        meta={
            "session_id": passage.session_id,
            "seq": passage.seq,
            "span": list(passage.span),
            "event_id": passage.event_id,
            "agent": passage.agent,
            "stated_at": passage.stated_at,
            "superseded": bool(labels),
        },
    )


HISTORY_DUPLICATE_THRESHOLD = 0.7
# A passage may say several things later statements ended; two quotes tell the reader to look.
MAX_LATER_LABELS = 2


@dataclass(frozen=True)
class HistoryCandidates:
    candidates: list[Candidate]  # best first
    dropped: list[Dropped]
    note: str  # how the rankers were fused
    retired: Retired  # what the passages found say is over, for the beliefs' labels


def history_candidates(
    hits: HistoryHits,
    beliefs: BeliefIndex | None,
    shown: Sequence[Belief],
    subject_id: str,
    said_after: Sequence[Passage] = (),
    in_session: Sequence[Retirement] = (),
    standing: set[str] | None = None,
) -> HistoryCandidates:
    """`said_after`: passages that say a shown belief's value after it was last stated
    (`HistorySearch.said_after`); they rank after the rest, and their retirements count.
    `in_session`: what the reader's own session says is over, which labels history too.
    `standing`: the doc ids of the beliefs that may stand for a passage (all when None)."""
    fused, note = hits.ranked, hits.note
    ranked_ids = {p.passage_id for _, p in fused}
    floor = fused[-1][0] * BELOW if fused else 1.0
    fused = fused + [(floor, p) for p in said_after if p.passage_id not in ranked_ids]
    current = CurrentBeliefs(beliefs, subject_id)
    replaced = replaced_values(shown)
    retired = Retired([*in_session, *retirements([*(passage for _, passage in fused), *in_beliefs(shown)])])
    # The beliefs a passage may be dropped for; every shown belief still labels what it replaced.
    shown_ids = {b.doc_id for b in shown if b.current and (standing is None or b.doc_id in standing)}
    candidates: list[Candidate] = []
    dropped: list[Dropped] = []
    # Boilerplate said in many sessions is worth one line: the best-ranked one stands for the rest.
    # Looser than the session's own 0.9: a line repeated across sessions differs in a word or two
    # (a date, a session number), which drops 3-shingle overlap to about 0.75 on a short sentence;
    # one changed word mid-sentence, as in a changed fact, stays below 0.7.
    seen = NearDuplicates(HISTORY_DUPLICATE_THRESHOLD)
    kept_at: dict[int, int] = {}  # index in `fused` -> index in `candidates`
    holder: dict[int, Passage] = {}  # index in `fused` -> the passage shown in its place
    for n, (score, passage) in enumerate(fused):
        labels, covering = check(passage, current, shown_ids) if passage.stated else ([], [])
        # An old value said in words the extractor did not read is labelled all the same.
        labels = list(dict.fromkeys([*labels, *map(superseded_label, mentioned(passage, replaced))]))
        if not labels and says_no_more(passage, covering):
            # The covering belief carries any later statement's label itself.
            ids = ", ".join(b.doc_id for b in covering)
            dropped.append(Dropped(item_id(passage), "history", f"stands as belief {ids}"))
            continue
        # So is a phrase a later passage says is over, whether or not anything extracted it.
        labels += [r.label for r in later_for_passage(passage, retired)[:MAX_LATER_LABELS]]
        twin = seen.add(n, shingle_set(words(passage.text)))
        if twin is None:
            kept_at[n], holder[n] = len(candidates), passage
            candidates.append(passage_candidate(passage, score, labels))
            continue
        kept = holder[twin]
        if words(passage.text) == words(kept.text) and (passage.stated_at, passage.seq) > (
            kept.stated_at,
            kept.seq,
        ):
            # The same words said again later: the last saying stands for the rest, at the best
            # one's place (a restated fact's current evidence is its last statement). Only the
            # same words: near-duplicates can be about other things ("King CHARLES III" of two
            # realms), and there the best-ranked one stays.
            candidates[kept_at[twin]] = passage_candidate(passage, fused[twin][0], labels)
            holder[twin] = passage
            dropped.append(Dropped(item_id(kept), "history", f"said again as {item_id(passage)}"))
            continue
        dropped.append(Dropped(item_id(passage), "history", f"near-duplicate of {item_id(kept)}"))
    return HistoryCandidates(candidates, dropped, note, retired)


def item_id(passage: Passage) -> str:
    return f"passage:{passage.session_id}:{passage.seq}:{passage.span[0]}-{passage.span[1]}"
