"""Every port of the local backend: one SQLite file (WAL) for the log, the libraries, the catalogue
and every index, and a folder for blobs. Each port is built when first asked for, so a path that
needs only the log never imports numpy, onnxruntime or tiktoken."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from agentmem.adapters import models
from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.adapters.local.sqlite_db import SqliteDatabase
    from agentmem.adapters.local.sqlite_log import SqliteEventLog
    from agentmem.ports.blobs import BlobStore
    from agentmem.ports.catalogue import AssetIndex, Catalogue, ConversationMemory
    from agentmem.ports.dependents import DependentsIndex
    from agentmem.ports.embedding import Embedder
    from agentmem.ports.generations import ShadowLedger
    from agentmem.ports.log import CheckpointStore, LogTail
    from agentmem.ports.procedural import SkillIndex, SkillReviewer, StampedLibrary
    from agentmem.ports.projection import ProjectionStatusStore
    from agentmem.ports.ranking import RelevanceModel, Reranker
    from agentmem.ports.semantic import LLM, BeliefStore, ObservationSnapshot, PassageStore, RetentionSweeper
    from agentmem.ports.subjects import ErasureLedger, ErasureScheduler, SubjectLog
    from agentmem.ports.vectors import VectorCache
    from agentmem.wiring.ports import Compaction


class LocalFactory:
    """The embedded backend. Models default to MiniLM and the deterministic rules; Bedrock models
    may still be picked in Settings."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._tenant = settings.tenant_id

    @cached_property
    def database(self) -> SqliteDatabase:
        """The one SQLite file every local adapter shares (one connection set per path per process)."""
        from agentmem.adapters.local.sqlite_db import open_database

        return open_database(
            self._settings.data_dir / "agentmem.db", synchronous=self._settings.sqlite_synchronous
        )

    @cached_property
    def _log(self) -> SqliteEventLog:
        from agentmem.adapters.local.sqlite_log import SqliteEventLog

        return SqliteEventLog(self.database, self._tenant)

    # -- the log and blobs --------------------------------------------------------------------

    def event_log(self) -> SqliteEventLog:
        return self._log

    def log_tail(self) -> LogTail:
        """The log read in append order: what the projector worker and replay read."""
        return self._log

    def checkpoints(self) -> CheckpointStore:
        from agentmem.adapters.local.sqlite_log import SqliteCheckpoints

        return SqliteCheckpoints(self.database, self._tenant)

    def projection_status(self) -> ProjectionStatusStore:
        from agentmem.adapters.local.sqlite_projection_status import SqliteProjectionStatus

        return SqliteProjectionStatus(self.database, self._tenant)

    def blob_store(self) -> BlobStore:
        from agentmem.adapters.local.blob_folder import FolderBlobStore

        return FolderBlobStore(self._settings.data_dir / "blobs")

    # -- models -------------------------------------------------------------------------------

    def embedder(self) -> Embedder:
        return models.embedder(self._settings, "minilm")

    def vector_cache(self) -> VectorCache | None:
        """What projection embedded already, kept across generations, so a replay, a shadow build
        or the next worker round asks the model only about text it has not read."""
        from agentmem.adapters.local.sqlite_vector_cache import SqliteVectorCache

        return SqliteVectorCache(self.database, self._tenant)

    def llm(self) -> LLM:
        return models.llm(self._settings, "rules")

    def reviewer(self) -> SkillReviewer:
        return models.reviewer(self._settings, "rules")

    def reranker(self) -> Reranker | None:
        return models.reranker(self._settings)

    def relevance(self) -> RelevanceModel | None:
        return models.relevance(self._settings, "rules")

    # -- beliefs, libraries, catalogue and their indexes ---------------------------------------

    def belief_store(self, dimensions: Callable[[], int]) -> BeliefStore:
        from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore

        return SqliteBeliefStore(self.database, self._tenant)

    def skill_library(self) -> StampedLibrary:
        from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary

        return SqliteSkillLibrary(self.database, self._tenant)

    def skill_index(self, dimensions: Callable[[], int]) -> SkillIndex:
        """FTS5 + an exact vector matrix; the vectors' width is whatever the rows hold."""
        from agentmem.adapters.local.sqlite_skill_index import SqliteSkillIndex

        return SqliteSkillIndex(self.database, self._tenant)

    def catalogue(self) -> Catalogue:
        from agentmem.adapters.local.sqlite_catalogue import SqliteCatalogue

        return SqliteCatalogue(self.database, self._tenant)

    def conversation_memory(self) -> ConversationMemory:
        from agentmem.adapters.local.sqlite_catalogue import SqliteConversationMemory

        return SqliteConversationMemory(self.database, self._tenant)

    def asset_index(self, dimensions: Callable[[], int]) -> AssetIndex:
        from agentmem.adapters.local.sqlite_asset_index import SqliteAssetIndex

        return SqliteAssetIndex(self.database, self._tenant)

    def passage_store(self, dimensions: Callable[[], int]) -> PassageStore:
        """The history source's index: FTS5 + a vector matrix, one table pair per generation."""
        from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore

        return SqlitePassageStore(self.database, self._tenant)

    def shadow_ledger(self) -> ShadowLedger:
        """Which generations `replay --shadow` built, with what settings, and whether they are whole."""
        from agentmem.adapters.local.sqlite_shadow_ledger import SqliteShadowLedger

        return SqliteShadowLedger(self.database, self._tenant)

    def dependents(self) -> DependentsIndex:
        """What was built on which belief versions, marked stale by the projector worker."""
        from agentmem.adapters.local.sqlite_dependents import SqliteDependentsIndex

        return SqliteDependentsIndex(self.database, self._tenant)

    # -- erasure and retention (docs/erasure.md) -----------------------------------------------

    def erasure_ledger(self) -> ErasureLedger:
        from agentmem.adapters.local.sqlite_erasures import SqliteErasureLedger

        return SqliteErasureLedger(self.database, self._tenant)

    def subject_log(self) -> SubjectLog:
        from agentmem.adapters.local.sqlite_subject_log import SqliteSubjectLog

        self._log  # noqa: B018 - its schema first: the subject index is on the log's events table
        return SqliteSubjectLog(self.database, self._tenant)

    def erasure_scheduler(self) -> ErasureScheduler | None:
        """None: the local server erases in the request's process (it has no queue)."""
        return None

    def observation_snapshot(self) -> ObservationSnapshot | None:
        """The observations kept before retention deletes their events, so replay still has them."""
        from agentmem.adapters.local.sqlite_retention import SqliteObservationSnapshot

        return SqliteObservationSnapshot(self.database, self._tenant)

    def retention_sweeper(self, blobs: BlobStore) -> RetentionSweeper | None:
        """The worker's sweep, when the tenant set a retention (AWS: DynamoDB TTL, S3 lifecycle)."""
        days = self._settings.retention_days
        if days is None:
            return None
        from agentmem.adapters.local.sqlite_retention import SqliteRetention

        self._log  # noqa: B018 - its schema first: the sweep deletes from the log's tables
        return SqliteRetention(self.database, self._tenant, blobs, retention_days=days)

    def compaction(self) -> Compaction | None:
        return self.database.compact
