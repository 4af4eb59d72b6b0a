"""The ports of one process, each built on first use by the backend's factory unless the caller
passed its own. Adding a port: a Protocol in agentmem.ports, a method on both factories
(agentmem/adapters/{local,aws}/factory.py) and on BackendFactory, a key in PortOverrides and a
cached property here."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Protocol, TypedDict

# Annotations only: at run time a port's module loads with its adapter, so the write function's init
# never imports the catalogue's, the libraries' or the semantic tier's models (docs/deploy.md, "Cold start").
if TYPE_CHECKING:
    from agentmem.ports.blobs import BlobStore
    from agentmem.ports.catalogue import AssetIndex, Catalogue, ConversationMemory
    from agentmem.ports.dependents import DependentsIndex
    from agentmem.ports.embedding import Embedder
    from agentmem.ports.generations import ShadowLedger
    from agentmem.ports.log import CheckpointStore, EventLog, LogTail
    from agentmem.ports.procedural import SkillIndex, SkillReviewer, StampedLibrary
    from agentmem.ports.projection import ProjectionStatusStore
    from agentmem.ports.ranking import RelevanceModel, Reranker
    from agentmem.ports.semantic import LLM, BeliefStore, ObservationSnapshot, PassageStore, RetentionSweeper
    from agentmem.ports.subjects import ErasureLedger, ErasureScheduler, SubjectLog
    from agentmem.ports.vectors import VectorCache

Compaction = Callable[[], int]
"""Rewrites a store's files so that deleted rows leave no bytes behind (SQLite's VACUUM and WAL
truncate); returns the pages reclaimed. Only the local backend has one."""


class BackendFactory(Protocol):
    """Builds each port for one backend; nothing is built until asked for. An index is told the
    embedder's width through `dimensions`, called only by a backend whose index needs it up front."""

    def event_log(self) -> EventLog: ...
    def log_tail(self) -> LogTail: ...
    def checkpoints(self) -> CheckpointStore: ...
    def projection_status(self) -> ProjectionStatusStore: ...
    def blob_store(self) -> BlobStore: ...
    def embedder(self) -> Embedder: ...
    def vector_cache(self) -> VectorCache | None: ...
    def llm(self) -> LLM: ...
    def reviewer(self) -> SkillReviewer: ...
    def reranker(self) -> Reranker | None: ...
    def relevance(self) -> RelevanceModel | None: ...
    def belief_store(self, dimensions: Callable[[], int]) -> BeliefStore: ...
    def skill_library(self) -> StampedLibrary: ...
    def skill_index(self, dimensions: Callable[[], int]) -> SkillIndex: ...
    def catalogue(self) -> Catalogue: ...
    def conversation_memory(self) -> ConversationMemory: ...
    def asset_index(self, dimensions: Callable[[], int]) -> AssetIndex: ...
    def passage_store(self, dimensions: Callable[[], int]) -> PassageStore: ...
    def shadow_ledger(self) -> ShadowLedger: ...
    def dependents(self) -> DependentsIndex: ...
    def erasure_ledger(self) -> ErasureLedger: ...
    def subject_log(self) -> SubjectLog: ...
    def erasure_scheduler(self) -> ErasureScheduler | None: ...
    def observation_snapshot(self) -> ObservationSnapshot | None: ...
    def retention_sweeper(self, blobs: BlobStore) -> RetentionSweeper | None: ...
    def compaction(self) -> Compaction | None: ...


class PortOverrides(TypedDict, total=False):
    """Ports a caller (a test, a benchmark) supplies itself; the factory builds the rest."""

    event_log: EventLog
    log_tail: LogTail
    checkpoints: CheckpointStore
    projection_status: ProjectionStatusStore
    blob_store: BlobStore
    embedder: Embedder
    vector_cache: VectorCache | None
    llm: LLM
    reviewer: SkillReviewer
    reranker: Reranker | None
    relevance: RelevanceModel | None
    belief_store: BeliefStore
    skill_library: StampedLibrary
    skill_index: SkillIndex
    catalogue: Catalogue
    conversation_memory: ConversationMemory
    asset_index: AssetIndex
    passage_store: PassageStore
    shadow_ledger: ShadowLedger
    dependents: DependentsIndex
    erasure_ledger: ErasureLedger
    subject_log: SubjectLog
    erasure_scheduler: ErasureScheduler | None
    observation_snapshot: ObservationSnapshot | None
    retention_sweeper: RetentionSweeper | None
    compaction: Compaction | None


class Ports:
    """One instance of each port per process (per Lambda cold start)."""

    def __init__(self, factory: BackendFactory, overrides: PortOverrides) -> None:
        unknown = set(overrides) - set(PortOverrides.__annotations__)
        if unknown:
            raise TypeError(f"no such port: {', '.join(sorted(unknown))}")
        self.factory = factory
        # A cached_property reads the instance dict first: an override is simply the cached value.
        self.__dict__.update(overrides)

    @cached_property
    def event_log(self) -> EventLog:
        return self.factory.event_log()

    @cached_property
    def log_tail(self) -> LogTail:
        return self.factory.log_tail()

    @cached_property
    def checkpoints(self) -> CheckpointStore:
        return self.factory.checkpoints()

    @cached_property
    def projection_status(self) -> ProjectionStatusStore:
        return self.factory.projection_status()

    @cached_property
    def blob_store(self) -> BlobStore:
        return self.factory.blob_store()

    @cached_property
    def embedder(self) -> Embedder:
        return self.factory.embedder()

    @cached_property
    def vector_cache(self) -> VectorCache | None:
        return self.factory.vector_cache()

    @cached_property
    def llm(self) -> LLM:
        return self.factory.llm()

    @cached_property
    def reviewer(self) -> SkillReviewer:
        return self.factory.reviewer()

    @cached_property
    def reranker(self) -> Reranker | None:
        return self.factory.reranker()

    @cached_property
    def relevance(self) -> RelevanceModel | None:
        return self.factory.relevance()

    @cached_property
    def belief_store(self) -> BeliefStore:
        return self.factory.belief_store(self._dimensions)

    @cached_property
    def skill_library(self) -> StampedLibrary:
        return self.factory.skill_library()

    @cached_property
    def skill_index(self) -> SkillIndex:
        return self.factory.skill_index(self._dimensions)

    @cached_property
    def catalogue(self) -> Catalogue:
        return self.factory.catalogue()

    @cached_property
    def conversation_memory(self) -> ConversationMemory:
        return self.factory.conversation_memory()

    @cached_property
    def asset_index(self) -> AssetIndex:
        return self.factory.asset_index(self._dimensions)

    @cached_property
    def passage_store(self) -> PassageStore:
        return self.factory.passage_store(self._dimensions)

    @cached_property
    def shadow_ledger(self) -> ShadowLedger:
        return self.factory.shadow_ledger()

    @cached_property
    def dependents(self) -> DependentsIndex:
        return self.factory.dependents()

    @cached_property
    def erasure_ledger(self) -> ErasureLedger:
        return self.factory.erasure_ledger()

    @cached_property
    def subject_log(self) -> SubjectLog:
        return self.factory.subject_log()

    @cached_property
    def erasure_scheduler(self) -> ErasureScheduler | None:
        return self.factory.erasure_scheduler()

    @cached_property
    def observation_snapshot(self) -> ObservationSnapshot | None:
        return self.factory.observation_snapshot()

    @cached_property
    def retention_sweeper(self) -> RetentionSweeper | None:
        return self.factory.retention_sweeper(self.blob_store)

    @cached_property
    def compaction(self) -> Compaction | None:
        return self.factory.compaction()

    def _dimensions(self) -> int:
        return self.embedder.dimensions
