"""Build one agent's context: query both tiers, merge, pack into the budget, report what happened."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from agentmem.context.episodic_candidates import SessionRanking, episodic_candidates, rank_session
from agentmem.context.history_candidates import HistorySearch
from agentmem.context.history_section import with_history
from agentmem.context.one_ranking import capped_beliefs, event_similarity, one_ranking
from agentmem.context.response import context_items, episodic_window, source_shares
from agentmem.context.retirements import Retired
from agentmem.context.semantic_candidates import among_passages, search_keywords, semantic_candidates
from agentmem.context.session_window import SessionWindow, SessionWindows
from agentmem.context.since_lead import origin
from agentmem.context.since_read import SinceRead, since_sections, trace_of_since
from agentmem.context.token_cache import CachedTokenCounts
from agentmem.episodic.service import EpisodicService
from agentmem.errors import NotFoundError
from agentmem.model.beliefs import Belief, BeliefHit
from agentmem.model.context import (
    ContextRequest,
    ContextResponse,
    ContextTrace,
    DroppedItem,
)
from agentmem.model.events import Event
from agentmem.model.projection import ProjectionLag
from agentmem.packing.engine import pack
from agentmem.packing.model import Candidate, Dropped, Packed, Section
from agentmem.ports.log import EventLog
from agentmem.ports.tokens import EncodingName
from agentmem.procedural.search import SkillSearch, StaleLookup
from agentmem.semantic.service import SemanticService

TokenCounter = Callable[[str, EncodingName], int]


class ContextService:
    def __init__(
        self,
        log: EventLog,
        episodic: EpisodicService,
        semantic: Callable[[], SemanticService],
        count_tokens: TokenCounter,
        skills: Callable[[], SkillSearch] | None = None,
        windows: SessionWindows | None = None,
        stale: StaleLookup | None = None,
    ) -> None:
        self._log = log
        # The newest events of each session read lately, with their term statistics: a read of a
        # growing session fetches and tokenises only what was appended since the last one.
        self.windows = windows or SessionWindows(log)
        self._episodic = episodic
        self._semantic = semantic  # built on first use: a read that skips beliefs never loads them
        self._count = CachedTokenCounts(count_tokens)
        self._skills = skills  # None where the procedural tier has no adapter (AWS, so far)
        self._stale = stale  # which placed guidance is a stale dependent: one lookup per read
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentmem-context")

    def _ranked_session(self, request: ContextRequest) -> tuple[SessionWindow, SessionRanking]:
        window = self.windows.read(request.session_id)
        return window, rank_session(window.events, request.query)

    def _read_blob(self, event: Event) -> str:
        resolved = self._episodic.resolve_blob(event).content
        if isinstance(resolved, str):
            return " ".join(resolved.split())
        return json.dumps(resolved, ensure_ascii=False, separators=(", ", ": "))

    def _start_history(
        self, request: ContextRequest, semantic: SemanticService, notes: list[str]
    ) -> tuple[HistorySearch | None, int | None]:
        """Search the passages on worker threads while the beliefs are searched here."""
        if "history" not in request.include:
            return None, None
        if semantic.passages is None:
            notes.append("history: no passage index is wired in this deployment")
            return None, None
        passages = semantic.passages.active()
        search = HistorySearch(
            self._pool,
            passages,
            request.subject_id,
            request.session_id,
            request.query,
            request.budget_tokens,
            own_session=request.split is None and "episodic" in request.include,
        )
        return search, passages.generation

    def _require_known_subject(
        self,
        subject_id: str,
        session: Future[tuple[SessionWindow, SessionRanking]] | None,
        history: HistorySearch | None,
    ) -> None:
        """A subject with no beliefs is still known from its first event: beliefs are a projection
        and may lag or never come (nothing extractable), so their absence alone proves nothing."""
        if session is not None and session.result()[0].events:
            return
        if history is not None and history.result().found:
            return
        if not self._log.has_subject(subject_id):
            raise NotFoundError(f"no memory of subject {subject_id}", field="subject_id")

    def _add_skills(self, request: ContextRequest, candidates: list[Candidate], notes: list[str]) -> bool:
        """Whether skills are a source of this read (their candidates added to `candidates`)."""
        if "skills" not in request.include:
            return False
        if self._skills is None:
            notes.append("skills: the procedural tier is switched off or not available in this deployment")
            return False
        candidates += self._skills().candidates(request.query, stale=self._stale)
        return True

    def _session_candidates(
        self,
        window: SessionWindow,
        ranking: SessionRanking,
        request: ContextRequest,
        shown: list[Belief],
        history: HistorySearch | None,
        notes: list[str],
    ) -> tuple[list[Candidate], list[Dropped]]:
        """The reader's session's events; in one ranking (no `split`), scored by what their
        passages earned in the history search."""
        matched = None
        if request.split is None and history is not None:
            matched = history.result().of_session(request.session_id)[1]
        found = episodic_candidates(
            window.events,
            ranking,
            shown,
            read_blob=self._read_blob,
            budget=request.budget_tokens,
            matched=matched,
        )
        if not window.events:
            notes.append(f"session {request.session_id} has no events yet")
        elif window.outside:
            notes.append(
                f"episodic: ranked the newest {len(window.events):,} events"
                f" (#{window.first_seq}-#{window.last_seq}); {window.outside:,} older ones"
                f" (#1-#{window.first_seq - 1}) lay outside the window"
            )
        return found

    def _projection_lag(self, request: ContextRequest, notes: list[str]) -> ProjectionLag | None:
        """While projection fails, a read of beliefs or history says so: what it reads may lag."""
        if "semantic" not in request.include and "history" not in request.include:
            return None
        lag = self._semantic().projection_lag()
        if lag is not None:
            notes.append(
                f"projection failing since {lag.failing_since} ({lag.failed_attempts} attempts):"
                f" {lag.last_error}; beliefs lag the log, events and history passages are still read"
            )
        return lag

    def build(self, request: ContextRequest) -> ContextResponse:
        notes: list[str] = []
        candidates: list[Candidate] = []
        dropped: list[Dropped] = []
        beliefs: list[Belief] = []
        shown: list[Belief] = []  # the beliefs that stand for the passages they came from
        capped: set[str] = set()
        pooled = request.split is None
        generation: int | None = None
        since = SinceRead.of(request)  # a malformed or foreign watermark fails before any work
        retired: Retired | None = None
        # The log is read and ranked on a worker thread while the beliefs are searched here:
        # SQLite, onnxruntime and numpy release the GIL, so the two overlap.
        session = self._pool.submit(self._ranked_session, request) if "episodic" in request.include else None
        history: HistorySearch | None = None
        passage_generation: int | None = None
        belief_words: Future[list[BeliefHit]] | None = None
        if "semantic" in request.include or "history" in request.include:
            semantic = self._semantic()
            index = semantic.store.active()
            since.saw(index, request.subject_id)  # before the searches: see since.py
            # The keyword searches need no embedding: they run on worker threads while the query
            # is embedded (SQLite and onnxruntime release the GIL).
            history, passage_generation = self._start_history(request, semantic, notes)
            if "semantic" in request.include:
                belief_words = search_keywords(self._pool, index, request.subject_id, request.query)
            vector = semantic.embedder.embed([request.query])[0]  # one embedding for both searches
            if history is not None:
                history.search_vectors(vector)
        if "semantic" in request.include:
            generation = index.generation
            found = semantic_candidates(
                index, semantic.embedder, request.subject_id, request.query, vector, belief_words
            )
            beliefs = shown = found.beliefs
            if pooled and history is not None:
                hits = history.result()
                found = among_passages(found, list(hits.similarity.values()), request.query)
                capped = capped_beliefs(beliefs, found.similarity, event_similarity(hits))
                shown = [b for b in beliefs if b.doc_id not in capped]
            candidates += found.candidates
            if not found.candidates and not index.current(request.subject_id):
                self._require_known_subject(request.subject_id, session, history)
        if history is not None:
            candidates, dropped, retired = with_history(
                history, request, index, beliefs, shown, notes, candidates, session
            )
        window, ranking = session.result() if session is not None else (None, None)
        events = self._session_events(window, request)
        if window is not None and ranking is not None:
            in_session, gone = self._session_candidates(window, ranking, request, shown, history, notes)
            candidates += in_session
            dropped += gone
        if pooled:
            candidates = one_ranking(candidates, beliefs, capped, history, events, notes)
        skills = self._add_skills(request, candidates, notes)
        candidates, dropped = since.lead(
            request, window, self._log, beliefs, candidates, dropped, retired, notes
        )
        # One ranking, one pool (the default), or with `split` each source spends its share at
        # full detail first and what one leaves flows to the others (the detail-first policy).
        shares = since.shares(source_shares(request, skills=skills), pooled=pooled)
        packed = since.packed(
            lambda chosen: pack(
                chosen,
                budget=request.budget_tokens,
                shares=shares,
                sections=[
                    *since_sections(since),
                    Section("semantic", f"What is known about {request.subject_id}"),
                    Section("history", f"Earlier sessions with {request.subject_id}"),
                    Section("episodic", f"This session ({request.session_id})"),
                    Section("skills", "Skills for this task"),
                ],
                title=f"Context for {request.agent}",  # the agent knows its query: repeating it costs tokens
                count=lambda text: self._count(text, request.encoding),
                encoding=request.encoding,
                policy="pooled" if pooled else "detail_first",
            ),
            candidates,
            title=f"Context for {request.agent}",
            count=lambda text: self._count(text, request.encoding),
        )
        return self._response(
            packed,
            ContextTrace(
                budget_tokens=request.budget_tokens,
                used_tokens=packed.tokens,
                encoding=request.encoding,
                log_watermark_seq=events[-1].seq if events else 0,
                episodic_window=episodic_window(window) if window is not None else None,
                belief_generation=generation,
                passage_generation=passage_generation,
                history_pending_vectors=history.result().pending_vectors if history is not None else None,
                belief_versions={
                    str(p.candidate.meta["doc_id"]): int(p.candidate.meta["version"])
                    for p in packed.placed
                    if origin(p.candidate) == "semantic" and "version" in p.candidate.meta
                },
                tokens_by_source=packed.tokens_by_source,
                candidates_by_source={s: sum(origin(c) == s for c in candidates) for s in request.include},
                dropped=[
                    DroppedItem(item_id=d.item_id, source=d.source, reason=d.reason)
                    for d in dropped + packed.dropped
                ],
                projection_lag=self._projection_lag(request, notes),  # before `notes`: it adds one
                notes=notes,
                **trace_of_since(since, request, window, packed),
            ),
        )

    @staticmethod
    def _response(packed: Packed, trace: ContextTrace) -> ContextResponse:
        return ContextResponse(markdown=packed.markdown, items=context_items(packed), trace=trace)

    @staticmethod
    def _session_events(window: SessionWindow | None, request: ContextRequest) -> list[Event]:
        events: list[Event] = [t.event for t in window.events] if window is not None else []
        if events and events[0].subject_id != request.subject_id:
            raise NotFoundError(
                f"session {request.session_id} belongs to another subject", field="session_id"
            )
        return events
