"""Ports of the semantic tier: the LLM that extracts and judges facts, and the belief index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agentmem.model.beliefs import (
    Belief,
    BeliefHit,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event


class LLM(Protocol):
    """Extraction, verdicts and key resolution. Adapters: Bedrock Converse (JSON schema,
    temperature 0) and local rules."""

    def extract_facts(self, event: Event, fact_types: Sequence[FactType]) -> list[FactInput]:
        """Facts the event states about its subject. Grounded: nothing inferred or estimated.
        A fact under a key nobody declared comes as an `ExtractedFact`, with the cardinality and
        description the extractor proposes; the projector resolves its key."""
        ...

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        """Which of `candidates` (best first; never empty) means the same as the proposed key, or
        none of them. Must be deterministic: the answer is part of what replay reproduces."""
        ...

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        """SAME, UPDATE or CONFLICT for a candidate against the current belief of the same key."""
        ...


class BeliefIndex(Protocol):
    """One generation of the belief store for one tenant: observations, version chains, and
    vector + keyword search over current beliefs."""

    generation: int

    def add_observation(self, obs: Observation) -> None:
        """Record a statement; a repeat of the same (event, key, member) is a no-op."""
        ...

    def observations(self, subject_id: str, key: str, member: str) -> list[Observation]: ...

    def chain(self, subject_id: str, key: str, member: str) -> tuple[int, list[Belief]]:
        """(revision, every version oldest first). Revision 0 means no chain yet."""
        ...

    def replace_chain(
        self,
        subject_id: str,
        key: str,
        member: str,
        *,
        expected_revision: int,
        chain: list[Belief],
        vector: list[float] | None,
    ) -> None:
        """Write the chain atomically if the stored revision is still `expected_revision`, else
        raise VersionConflictError. `vector` embeds the current version's text (None: keep)."""
        ...

    def current(self, subject_id: str, key: str | None = None) -> list[Belief]:
        """Current beliefs of a subject, optionally of one key, ordered by key then member."""
        ...

    def history(self, subject_id: str, key: str) -> list[Belief]:
        """Every version of every member of `key`, oldest first."""
        ...

    def vector_search(self, subject_id: str, vector: Sequence[float], k: int) -> list[BeliefHit]:
        """Current beliefs nearest to `vector` (cosine), best first."""
        ...

    def keyword_search(self, subject_id: str, query: str, k: int) -> list[BeliefHit]:
        """Current beliefs matching `query` by BM25, best first."""
        ...

    def subjects(self) -> list[str]: ...

    def vector_coverage(self, subject_id: str) -> tuple[int, int]:
        """(current beliefs, current beliefs that have a vector): equal when the index is healthy."""
        ...


class BeliefStore(Protocol):
    """Generations of the belief index: readers use the active one while a replay builds the next."""

    def active(self) -> BeliefIndex:
        """The generation readers use. Never writes: before `ensure_ready` it may name a
        generation that does not exist yet, and every read of it answers empty."""
        ...

    def ensure_ready(self) -> None:
        """Create the first generation and its aliases if none exist; idempotent; needs write
        access. Writers (the projector, replay) call it before writing; readers never do."""
        ...

    def new_generation(self) -> BeliefIndex:
        """An empty generation beside the active one."""
        ...

    def activate(self, generation: int) -> None:
        """Switch readers to `generation` atomically."""
        ...
