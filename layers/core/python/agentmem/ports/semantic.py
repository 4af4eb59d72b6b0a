"""Ports of the semantic tier: the LLM that extracts and judges facts, the belief index, and the
history passage index."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
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
from agentmem.model.passages import Passage, PassageHit


class LLM(Protocol):
    """Extraction, verdicts and key resolution. Adapters: Bedrock Converse (JSON schema,
    temperature 0) and local rules."""

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        """Facts the event states about its subject. Grounded: nothing inferred or estimated.
        A fact under a key nobody declared comes as an `ExtractedFact`, with the cardinality and
        description the extractor proposes; the projector resolves its key. `allow_undeclared`
        is the tenant's choice: a model proposes keys of its own only then (the local rules
        always propose, and the resolver drops what the tenant refuses)."""
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

    def frontier(self, subject_id: str) -> str:
        """The newest log position (`source_order`) applied to any current belief of the subject,
        "" when it has none: how far projection has come for it. A read's watermark keeps it."""
        ...

    def changed_since(self, subject_id: str, position: str, limit: int) -> list[Belief]:
        """Current beliefs of the subject whose last applied statement comes after `position`
        (`source_order` > position; a SAME restatement counts), oldest first (ties by doc id), at
        most `limit`. What a read since a watermark checks for versions that moved."""
        ...

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

    def generation(self, generation: int) -> BeliefIndex:
        """Generation `generation` by number, active or not (a shadow build, a promotion). Whether
        it was ever built is the caller's to know (the shadow ledger): this does not check."""
        ...

    def activate(self, generation: int) -> None:
        """Switch readers to `generation` atomically."""
        ...

    def forget_subject(self, subject_id: str) -> int:
        """Erase the subject from every generation, active or not: chains, archived versions,
        observations, vectors and keyword rows. Idempotent; returns how many items went."""
        ...


class ErasedSubjects(Protocol):
    """The erasure tombstones, as projection sees them."""

    def erased(self, subject_ids: Collection[str]) -> set[str]:
        """Those of `subject_ids` that were erased (a strongly consistent read)."""
        ...


class ObservationSnapshot(Protocol):
    """Observations kept when retention expires the events that stated them, so that a replay
    of what is left of the log still reproduces the beliefs (semantic.snapshot.seed)."""

    def pages(self, subject_id: str | None = None, size: int = 500) -> Iterator[list[Observation]]:
        """Every kept observation (of one subject, when given) in log order, `size` at a time."""
        ...


class RetentionSweeper(Protocol):
    """Expires raw events (and the blobs only they pointed at) past the tenant's retention."""

    def sweep(self, projected_up_to: int, generation: int) -> int:
        """Delete expired events at log positions up to `projected_up_to` (what `generation`, the
        active one, has projected), keeping their observations first; returns how many went."""


class PassageIndex(Protocol):
    """One generation of the history passage index for one tenant: the subject's logged events
    cut into passages (`semantic.passages`), searchable by meaning and by keyword."""

    generation: int
    defers_vectors: bool
    """True where a passage can be indexed before its vector (`add` with None, then
    `store_vectors`): projection then writes passages for keyword search at once and the vector
    lane (`semantic.passage_vectors`) embeds them behind it. False where a passage is written
    whole, with its vector (OpenSearch, from the stream)."""

    def missing(self, subject_id: str, passage_ids: Sequence[str]) -> set[str]:
        """Which of `passage_ids` are not indexed yet: a redelivered event embeds nothing."""
        ...

    def add(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]] | None) -> int:
        """Index each passage with its vector (same order); a passage already indexed under its
        (subject, passage id) is left as it is. Returns how many were new. With `vectors` None
        (only where `defers_vectors`), keyword search finds the passages at once and vector
        search once `store_vectors` has given them theirs."""
        ...

    def restate(self, passages: Sequence[Passage]) -> int:
        """Give each passage already indexed the `stated` facts of `passages` (same subject and
        passage id), leaving its text and vector as they are; a passage not indexed (or erased) is
        not added. Returns how many changed. Projection indexes passages without their facts when
        extraction fails, so history never goes blind, and restates them once it succeeds."""
        ...

    def pending(self, limit: int) -> list[Passage]:
        """Up to `limit` passages of the tenant still without a vector, oldest first."""
        ...

    def pending_count(self, subject_id: str) -> int:
        """How many of the subject's passages vector search cannot see yet."""
        ...

    def store_vectors(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]]) -> int:
        """Give each pending passage its vector; a passage erased or given one meanwhile is left
        alone (an erased passage never comes back). Returns how many were stored."""
        ...

    def vector_search(
        self, subject_id: str, vector: Sequence[float], k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        """The subject's passages nearest to `vector` (cosine), best first; ties by passage id.
        Passages of `exclude_session` are left out (the reader's own session is episodic's)."""
        ...

    def keyword_search(
        self, subject_id: str, query: str, k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        """The subject's passages matching `query` by BM25, best first."""
        ...

    def count(self, subject_id: str) -> int: ...

    def erase_subject(self, subject_id: str) -> int:
        """Remove every passage of the subject from this generation; returns how many."""
        ...


class PassageStore(Protocol):
    """Generations of the passage index, numbered like the belief store's: the projector writes
    generation g beside belief generation g, and replay switches both."""

    def active(self) -> PassageIndex:
        """The generation readers use; before any `activate`, generation 1. Never writes."""
        ...

    def generation(self, generation: int) -> PassageIndex:
        """Generation `generation`, created (empty) if it does not exist yet; needs write access."""
        ...

    def activate(self, generation: int) -> None:
        """Switch readers to `generation` atomically."""
        ...

    def copy_other_subjects(self, source: int, target: int, subject_id: str) -> None:
        """Copy every subject but `subject_id` from generation `source` into `target`."""
        ...

    def erase_subject(self, subject_id: str) -> int:
        """Remove every passage of the subject from every generation; returns how many."""
        ...
