"""Reads and projection for the semantic tier, over whichever belief generation is active."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from agentmem.errors import AgentMemError, InvalidInputError, NotFoundError
from agentmem.model.beliefs import Belief, BeliefHit
from agentmem.model.dependents import BeliefRef
from agentmem.model.events import Event
from agentmem.model.projection import ProjectionLag, lag_of
from agentmem.ports.dependents import DependentsIndex
from agentmem.ports.embedding import Embedder
from agentmem.ports.projection import ProjectionStatusStore
from agentmem.ports.semantic import LLM, BeliefIndex, BeliefStore, ErasedSubjects, PassageStore
from agentmem.ports.vectors import VectorCache
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.foreground import Foreground
from agentmem.semantic.index_embeddings import ErasureGuardedCache
from agentmem.semantic.projector import Applied, ErasureGuard, Projector
from agentmem.semantic.staleness import StaleMarker
from agentmem.semantic.yielding_llm import YieldingLLM

logger = logging.getLogger(__name__)

MAX_SEARCH_K = 50


@dataclass(frozen=True)
class BeliefChain:
    key: str
    current: list[Belief]
    history: list[Belief] | None


class SemanticService:
    def __init__(
        self,
        store: BeliefStore,
        llm: LLM,
        embedder: Embedder,
        fact_types: FactTypeCatalog,
        erasures: ErasedSubjects | None = None,
        purge: Callable[[str], int] | None = None,
        passages: PassageStore | None = None,
        status: ProjectionStatusStore | None = None,
        dependents: DependentsIndex | None = None,
        vector_cache: VectorCache | None = None,
    ) -> None:
        """`purge` removes a subject erased while a batch was projected (default: the store's
        forget_subject; the local wiring also compacts the file, as the erasure itself does).
        `status` is where the projector says how it fares, for reads to report. `dependents` is
        marked stale by the projection that moves a belief (docs/stale-dependents.md).
        `vector_cache` holds what projection embedded already; queries never go through it (a
        read must not write, and a query is rarely asked twice)."""
        self.store = store
        self.passages = passages  # the history source's index; None where it is not wired
        self.status = status
        self.llm = llm
        self.embedder = embedder
        self.fact_types = fact_types
        self.erasures = erasures
        self.dependents = dependents
        self.vector_cache = (
            ErasureGuardedCache(vector_cache, erasures.erased)
            if vector_cache is not None and erasures is not None
            else vector_cache
        )
        self._guard = (
            ErasureGuard(erasures.erased, purge or store.forget_subject) if erasures is not None else None
        )

    def projector(
        self, index: BeliefIndex | None = None, *, foreground: Foreground | None = None
    ) -> Projector:
        """A projector onto `index`, or onto the active generation, and onto the passage
        generation of the same number. It skips erased subjects. With `foreground`, it lets the
        requests in flight go before each event it extracts (a background worker's)."""
        target = index or self.store.active()
        passages = self.passages.generation(target.generation) if self.passages is not None else None
        # Only projection onto the live beliefs marks dependents: a shadow generation may number
        # versions otherwise, and nobody reads it until it is switched to (replayed whole, which
        # marks nothing new: marks only ever rise).
        live = index is None or index.generation == self.store.active().generation
        stale = StaleMarker(self.dependents) if live and self.dependents is not None else None
        llm = self.llm if foreground is None else YieldingLLM(self.llm, foreground)
        return Projector(
            target, llm, self.embedder, self.fact_types, self._guard, passages, stale, self.vector_cache
        )

    def project(self, event: Event) -> list[Applied]:
        return self.projector().project(event)

    def projection_lag(self, now: datetime | None = None) -> ProjectionLag | None:
        """How far behind the log the beliefs are while projection is failing; None while it is
        not (or where no status is wired). One small read of the shared status."""
        if self.status is None:
            return None
        try:
            status = self.status.load()
        except AgentMemError as exc:  # a read must never fail for want of its status
            logger.warning("projection status not read", extra={"error": exc.message})
            return None
        return lag_of(status, now or datetime.now(UTC))

    def version_of(self, ref: BeliefRef) -> int:
        """The current version of the cited belief; 0 when there is none (not stated yet, or erased)."""
        _, chain = self.store.active().chain(ref.subject_id, ref.key, ref.member or "")
        return chain[-1].version if chain and chain[-1].current else 0

    def current(self, subject_id: str) -> list[Belief]:
        return self.store.active().current(subject_id)

    def belief(self, subject_id: str, key: str, *, history: bool = False) -> BeliefChain:
        """The current belief(s) under `key`, and on request every archived version. A key with
        no belief is unknown: the caller is told so, never handed a guess."""
        index = self.store.active()
        current = index.current(subject_id, key)
        if not current:
            raise NotFoundError(f"no belief about {key!r} for subject {subject_id!r}", field="key")
        return BeliefChain(
            key=key, current=current, history=index.history(subject_id, key) if history else None
        )

    def search(self, subject_id: str, query: str, k: int = 5) -> list[BeliefHit]:
        """Current beliefs by meaning (vector search on the fact sentence)."""
        if not 1 <= k <= MAX_SEARCH_K:
            raise InvalidInputError(f"k must be between 1 and {MAX_SEARCH_K}", field="k")
        vector = self.embedder.embed([query])[0]
        return self.store.active().vector_search(subject_id, vector, k)
