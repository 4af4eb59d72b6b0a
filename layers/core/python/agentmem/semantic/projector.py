"""Search, then decide: turn one log event into observations and fold each into its belief chain.

The same code runs in the DynamoDB stream Lambda, the local projector worker and replay."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from agentmem.errors import ContentionError, VersionConflictError
from agentmem.model.beliefs import Belief, FactInput, Observation, Verdict, normalise_value
from agentmem.model.events import Event
from agentmem.model.passages import Passage
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import LLM, BeliefIndex, PassageIndex
from agentmem.ports.vectors import VectorCache
from agentmem.semantic.event_observations import observation_of, order_key
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.fold import applied, fold, is_newest, step
from agentmem.semantic.index_embeddings import IndexEmbeddings, Said
from agentmem.semantic.key_book import KeyBook
from agentmem.semantic.key_resolver import KeyResolver, Resolution, Stated
from agentmem.semantic.passages import passages_of
from agentmem.semantic.staleness import StaleMarker

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 12


@dataclass(frozen=True)
class Applied:
    doc_id: str
    verdict: Verdict
    version: int


@dataclass(frozen=True)
class ErasureGuard:
    """How projection honours erasures: skip what was erased before it began, and purge what an
    erasure that began meanwhile may have missed. Together the two checks close the race with
    an erasure, which writes its tombstone before it purges: a write either lands before that
    purge (and is purged) or after the tombstone (and is purged by the re-check here)."""

    erased: Callable[[Collection[str]], set[str]]
    purge: Callable[[str], int]


class Projector:
    def __init__(
        self,
        index: BeliefIndex,
        llm: LLM,
        embedder: Embedder,
        fact_types: FactTypeCatalog,
        guard: ErasureGuard | None = None,
        passages: PassageIndex | None = None,
        stale: StaleMarker | None = None,
        cache: VectorCache | None = None,
    ) -> None:
        """`cache` holds what was embedded already (by an earlier round, generation or replay):
        the model is asked only about text it has not read."""
        self._index = index
        self._stale = stale  # marks what was built on a belief, in the step that moves it
        self._passages = passages
        self._llm = llm
        self._embeddings = IndexEmbeddings(embedder, cache)
        self._fact_types = fact_types
        self._resolver = KeyResolver(llm, embedder, fact_types, cache)
        self._guard = guard
        self._vectors: dict[str, list[float]] = {}

    def project(self, event: Event) -> list[Applied]:
        """Apply every fact `event` states. Safe to call again for the same event."""
        return self.project_many([event])

    def project_many(self, events: Sequence[Event]) -> list[Applied]:
        """Apply a batch in order, and index its events as history passages. The sentences that
        will need a vector (new belief texts, and passages not indexed yet unless the passage
        index defers their vectors) are embedded in one call up front: one call per fact made
        embedding most of the projection time."""
        events = self._unerased(events)
        try:
            observations = self._observations(events)
            new, restated = self._passages_to_write(events, observations)
            return self._apply_all(observations, new, restated)
        except Exception:
            # The log is the truth, and history reads it through the passages: a failing
            # extractor (a model server down) must not keep them out of the index. They go in
            # without the facts their events state, which `restate` adds once projection succeeds.
            self._index_passages_anyway(events)
            raise

    def index_passages(self, events: Sequence[Event]) -> int:
        """Index the events' passages without extracting anything (no fact attributed yet):
        what the local worker does for the events past a projection that keeps failing. Returns
        how many passages were new."""
        events = self._unerased(events)
        new, _ = self._passages_to_write(events, [])
        self._apply_all([], new)
        return len(new)

    def _index_passages_anyway(self, events: Sequence[Event]) -> None:
        try:
            added = self.index_passages(events)
        except Exception as exc:  # the projection's own error is the one to raise
            logger.warning("passages not indexed either", extra={"error": type(exc).__name__})
            return
        if added:
            logger.info("passages indexed without their facts", extra={"passages": added})

    def _unerased(self, events: Sequence[Event]) -> Sequence[Event]:
        if self._guard is None or not events:
            return events
        erased = self._guard.erased({e.subject_id for e in events})
        return [e for e in events if e.subject_id not in erased]

    def _observations(self, events: Sequence[Event]) -> list[Observation]:
        stated = [(event, fact) for event in events for fact in self._facts(event)]
        batch = [Stated(fact, e.subject_id, order_key(e), explicit=bool(e.facts)) for e, fact in stated]
        keys = KeyBook(self._index)  # what each subject's keys were at each point of the log
        self._resolver.prepare(batch, keys)  # every key embedding the batch needs, in one call
        observations: list[Observation] = []
        for (event, fact), s in zip(stated, batch, strict=True):
            resolution = self._resolver.resolve(fact, s.subject_id, s.order, keys, explicit=s.explicit)
            if resolution is None:
                logger.warning(
                    "undeclared fact key refused", extra={"key": fact.key, "event_id": event.event_id}
                )
                continue
            obs = self._observation(event, fact, resolution)
            observations.append(obs)
            keys.note(obs)
        return observations

    def _facts(self, event: Event) -> list[FactInput]:
        """The agent's own facts, or what extraction reads in the event."""
        if event.facts:
            return list(event.facts)
        return self._llm.extract_facts(
            event, self._fact_types.declared(), allow_undeclared=self._fact_types.allow_undeclared
        )

    def project_observations(self, observations: Sequence[Observation]) -> list[Applied]:
        """Fold observations kept from expired events (a retention snapshot) as if their events
        were projected again. Idempotent, like every projection. Their events are gone, and so
        are their passages: nothing is indexed as history."""
        if self._guard is not None and observations:
            erased = self._guard.erased({o.subject_id for o in observations})
            observations = [o for o in observations if o.subject_id not in erased]
        return self._apply_all(observations, [])

    def _apply_all(
        self,
        observations: Sequence[Observation],
        passages: Sequence[Passage],
        restated: Sequence[Passage] = (),
    ) -> list[Applied]:
        # Where the index can hold a passage before its vector, the passages' vectors are left to
        # the vector lane (`passage_vectors.embed_pending`): embedding them here made projection
        # run at the model's rate (35 events/s) instead of the beliefs' (500).
        deferred = self._passages is not None and self._passages.defers_vectors
        inline: list[Said] = [] if deferred else [(p.subject_id, p.text) for p in passages]
        self._vectors = self._embed_new_texts(observations, inline)
        try:
            applied = [self._apply(obs) for obs in observations]
            if self._passages is not None and passages:
                # After the beliefs: a crash in between redelivers the batch, and both are idempotent.
                vectors = None if deferred else [self._vector(p.text, p.subject_id) for p in passages]
                self._passages.add(passages, vectors)
            if self._passages is not None and restated:
                self._passages.restate(restated)
        finally:
            self._vectors = {}
        touched = {o.subject_id for o in observations} | {p.subject_id for p in passages}
        if self._guard is not None and touched:
            for subject_id in sorted(self._guard.erased(touched)):
                logger.info(
                    "erased while projecting: purged again", extra={"purged": self._guard.purge(subject_id)}
                )
        return applied

    def _passages_to_write(
        self, events: Sequence[Event], observations: Sequence[Observation]
    ) -> tuple[list[Passage], list[Passage]]:
        """The batch's passages that the passage index does not hold yet, and those it holds
        that state facts (indexed without them if extraction failed then: `restate` is a no-op
        on one that has them)."""
        if self._passages is None:
            return [], []
        cut = [p for event in events for p in passages_of(event, observations)]
        missing: set[tuple[str, str]] = set()
        for subject in dict.fromkeys(p.subject_id for p in cut):
            ids = [p.passage_id for p in cut if p.subject_id == subject]
            missing |= {(subject, pid) for pid in self._passages.missing(subject, ids)}
        new = [p for p in cut if (p.subject_id, p.passage_id) in missing]
        held = [p for p in cut if (p.subject_id, p.passage_id) not in missing and p.stated]
        return new, held

    def _embed_new_texts(
        self, observations: Sequence[Observation], extra: Sequence[Said] = ()
    ) -> dict[str, list[float]]:
        wanted: list[Said] = list(extra)
        for obs in observations:
            _, chain = self._index.chain(obs.subject_id, obs.key, obs.member)
            if not chain or normalise_value(chain[-1].value) != normalise_value(obs.value):
                wanted.append((obs.subject_id, obs.text))
        unique = list(dict.fromkeys(wanted))
        return {
            text: vector for (_, text), vector in zip(unique, self._embeddings.embed(unique), strict=True)
        }

    def _vector(self, text: str, subject_id: str) -> list[float]:
        cached = self._vectors.get(text)
        return cached if cached is not None else self._embeddings.embed([(subject_id, text)])[0]

    def _observation(self, event: Event, fact: FactInput, resolution: Resolution) -> Observation:
        obs = observation_of(event, fact, self._fact_types, resolution)
        assert obs is not None  # with a resolution there is always one
        return obs

    def _apply(self, obs: Observation) -> Applied:
        fact_type = self._fact_types.for_observation(obs.key, obs.member)

        def decide(current: Belief, candidate: Observation) -> Verdict:
            if normalise_value(current.value) == normalise_value(candidate.value):
                return Verdict.SAME  # equal values never need the model
            return self._llm.decide(current, candidate, fact_type)

        self._index.add_observation(obs)
        for attempt in range(MAX_ATTEMPTS):
            revision, chain = self._index.chain(obs.subject_id, obs.key, obs.member)
            if applied(chain, obs):
                if self._stale is not None:
                    self._stale.mark(chain[-1])  # redelivered: the mark may not have landed
                return Applied(chain[-1].doc_id, Verdict.SAME, chain[-1].version)
            if is_newest(chain, obs):
                new_chain, verdict = step(chain, obs, decide)
            else:
                # Delivered out of order: refold the key from all its observations in log order.
                new_chain = fold(self._index.observations(obs.subject_id, obs.key, obs.member), decide)
                verdict = new_chain[-1].verdict
            current = new_chain[-1]
            text_changed = not chain or chain[-1].text != current.text
            vector = self._vector(current.text, obs.subject_id) if text_changed else None
            try:
                self._index.replace_chain(
                    obs.subject_id,
                    obs.key,
                    obs.member,
                    expected_revision=revision,
                    chain=new_chain,
                    vector=vector,
                )
            except VersionConflictError:
                # Another projector wrote this key first: back off with jitter, re-read, refold.
                time.sleep(random.uniform(0, 0.005 * 2**attempt))  # noqa: S311 - jitter, not crypto
                continue
            if self._stale is not None:
                self._stale.moved(chain[-1] if chain else None, current)
            logger.info(
                "belief projected",
                extra={"doc_id": current.doc_id, "verdict": verdict.value, "version": current.version},
            )
            return Applied(current.doc_id, verdict, current.version)
        raise ContentionError(f"belief {obs.key} kept changing under concurrent projectors")
