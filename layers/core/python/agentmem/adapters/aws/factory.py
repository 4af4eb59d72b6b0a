"""Every port of the AWS backend: the log, both libraries and the catalogue in the one DynamoDB
table (its stream drives the projector), the vector cache in a table of its own, blobs in S3,
every index in OpenSearch. Each port is built when first asked for: the write function builds
the log and blobs only, and never imports opensearch-py, numpy or tiktoken."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from agentmem.adapters import models
from agentmem.errors import UnsupportedOnBackendError
from agentmem.settings import Settings

if TYPE_CHECKING:
    import boto3
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client
    from opensearchpy import OpenSearch

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
    from agentmem.wiring.ports import Compaction

STATUS_MAX_AGE = 5.0
"""Seconds a read function container trusts the projection status it read: a failing projection
shows in reads within this, and a read costs a GetItem at most this often."""
NO_TAIL = "on AWS the DynamoDB stream drives the projector; the local worker and replay tail the local log"


class AwsFactory:
    """The serverless backend. Models default to Bedrock; the local ones may still be picked."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._tenant = settings.tenant_id

    @cached_property
    def _session(self) -> boto3.session.Session:
        import boto3

        return boto3.session.Session(region_name=self._settings.aws_region)

    @cached_property
    def _dynamodb(self) -> DynamoDBClient:
        return self._session.client("dynamodb", endpoint_url=self._settings.endpoint_url)

    @cached_property
    def _s3(self) -> S3Client:
        return self._session.client("s3", endpoint_url=self._settings.endpoint_url)

    @cached_property
    def _opensearch(self) -> OpenSearch:
        from agentmem.adapters.aws.opensearch_client import opensearch_client

        return opensearch_client(self._settings)

    # -- the log and blobs --------------------------------------------------------------------

    @property
    def _retention_seconds(self) -> int | None:
        days = self._settings.retention_days
        return days * 86_400 if days is not None else None

    def event_log(self) -> EventLog:
        from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog

        return DynamoDbEventLog(
            self._settings.table_name,
            self._tenant,
            client=self._dynamodb,
            retention_seconds=self._retention_seconds,
        )

    def log_tail(self) -> LogTail:
        raise UnsupportedOnBackendError(NO_TAIL)

    def checkpoints(self) -> CheckpointStore:
        raise UnsupportedOnBackendError(NO_TAIL)

    def projection_status(self) -> ProjectionStatusStore:
        """The stream projector's failure path writes it; the read function reads it."""
        from agentmem.adapters.aws.dynamodb_projection_status import DynamoDbProjectionStatus

        return DynamoDbProjectionStatus(
            self._settings.table_name, self._tenant, client=self._dynamodb, max_age_seconds=STATUS_MAX_AGE
        )

    def blob_store(self) -> BlobStore:
        from agentmem.adapters.aws.s3_blobs import S3BlobStore

        # The bucket's lifecycle rule keeps a blob two days longer than the retention (infra/):
        # one renewed once a day old outlives every event that points at it.
        refresh = 86_400 if self._retention_seconds is not None else None
        return S3BlobStore(self._settings.bucket_name, client=lambda: self._s3, refresh_after_seconds=refresh)

    # -- models -------------------------------------------------------------------------------

    def embedder(self) -> Embedder:
        return models.embedder(self._settings, "bedrock")

    def vector_cache(self) -> VectorCache | None:
        """The stack's vector table, where the projector and the replay worker keep what they
        embedded and the erasure function forgets a subject's share (docs/erasure.md). None without
        a table name: that function then embeds without a cache and has no vectors to forget."""
        name = self._settings.vector_table_name
        if not name:
            return None
        from agentmem.adapters.aws.dynamodb_vector_cache import DynamoDbVectorCache

        return DynamoDbVectorCache(name, self._tenant, client=self._dynamodb)

    def llm(self) -> LLM:
        return models.llm(self._settings, "bedrock")

    def reviewer(self) -> SkillReviewer:
        return models.reviewer(self._settings, "bedrock")

    def reranker(self) -> Reranker | None:
        return models.reranker(self._settings)

    def relevance(self) -> RelevanceModel | None:
        return models.relevance(self._settings, "bedrock")

    # -- beliefs, libraries, catalogue and their indexes ---------------------------------------

    def belief_store(self, dimensions: Callable[[], int]) -> BeliefStore:
        from agentmem.adapters.aws.opensearch_belief_store import OpenSearchBeliefStore

        settings = self._settings
        return OpenSearchBeliefStore(
            self._opensearch, self._tenant, prefix=settings.opensearch_prefix, dimensions=dimensions()
        )

    def shadow_ledger(self) -> ShadowLedger:
        raise UnsupportedOnBackendError(
            "the shadow ledger is local; on AWS, `agentmem replay --backend aws --shadow` builds a shadow"
            " with the stack's state machine, whose history records it (docs/deploy.md)"
        )

    def skill_library(self) -> StampedLibrary:
        """The log's table: its items carry the stream the projector indexes them from."""
        from agentmem.adapters.aws.dynamodb_skills import DynamoDbSkillLibrary

        return DynamoDbSkillLibrary(self._settings.table_name, self._tenant, client=self._dynamodb)

    def skill_index(self, dimensions: Callable[[], int]) -> SkillIndex:
        from agentmem.adapters.aws.opensearch_skill_index import OpenSearchSkillIndex

        settings = self._settings
        return OpenSearchSkillIndex(
            self._opensearch, self._tenant, prefix=settings.opensearch_prefix, dimension=dimensions()
        )

    def catalogue(self) -> Catalogue:
        from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbCatalogue

        return DynamoDbCatalogue(self._settings.table_name, self._tenant, client=self._dynamodb)

    def conversation_memory(self) -> ConversationMemory:
        from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbConversationMemory

        return DynamoDbConversationMemory(self._settings.table_name, self._tenant, client=self._dynamodb)

    def asset_index(self, dimensions: Callable[[], int]) -> AssetIndex:
        from agentmem.adapters.aws.opensearch_asset_index import OpenSearchAssetIndex

        settings = self._settings
        return OpenSearchAssetIndex(
            self._opensearch, self._tenant, prefix=settings.opensearch_prefix, dimension=dimensions()
        )

    def passage_store(self, dimensions: Callable[[], int]) -> PassageStore:
        """The history source's per-tenant events index, with generations and an alias like beliefs."""
        from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore

        settings = self._settings
        return OpenSearchPassageStore(
            self._opensearch, self._tenant, prefix=settings.opensearch_prefix, dimensions=dimensions()
        )

    def dependents(self) -> DependentsIndex:
        """The log's table: the stream projector marks, the API functions record and read."""
        from agentmem.adapters.aws.dynamodb_dependents import DynamoDbDependentsIndex

        return DynamoDbDependentsIndex(self._settings.table_name, self._tenant, client=self._dynamodb)

    # -- erasure and retention (docs/erasure.md) -----------------------------------------------

    def erasure_ledger(self) -> ErasureLedger:
        from agentmem.adapters.aws.dynamodb_erasures import DynamoDbErasureLedger

        return DynamoDbErasureLedger(self._settings.table_name, self._tenant, client=self._dynamodb)

    def subject_log(self) -> SubjectLog:
        from agentmem.adapters.aws.dynamodb_subject_log import DynamoDbSubjectLog

        return DynamoDbSubjectLog(self._settings.table_name, self._tenant, client=self._dynamodb)

    def erasure_scheduler(self) -> ErasureScheduler | None:
        """The erasure function's queue; without one (a test stack) the API erases in-line."""
        url = self._settings.erasure_queue_url
        if not url:
            return None
        from agentmem.adapters.aws.sqs_erasure_queue import SqsErasureScheduler

        return SqsErasureScheduler(
            url, client=self._session.client("sqs", endpoint_url=self._settings.endpoint_url)
        )

    def observation_snapshot(self) -> ObservationSnapshot | None:
        """None: the observation index keeps observations past their events' TTL."""
        return None

    def retention_sweeper(self, blobs: BlobStore) -> RetentionSweeper | None:
        """None: DynamoDB TTL and the bucket's lifecycle rule expire data on AWS."""
        return None

    def compaction(self) -> Compaction | None:
        """None: DynamoDB and OpenSearch reclaim deleted items themselves."""
        return None
