"""The one place that picks and wires adapters. Handlers, the local server and tests call it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.ports.blobs import BlobStore
from agentmem.ports.log import EventLog
from agentmem.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

    from agentmem.adapters.local.sqlite_db import SqliteDatabase
    from agentmem.compose.service import ComposerService
    from agentmem.context.service import ContextService
    from agentmem.ports.procedural import SkillIndex, StampedLibrary
    from agentmem.procedural.review import ReviewService
    from agentmem.procedural.search import SkillSearch
    from agentmem.semantic.service import SemanticService


@dataclass
class Services:
    """Everything a request handler may call, built once per process (per Lambda cold start).
    The semantic tier is built on first use, so the write path never imports numpy, onnxruntime
    or opensearch-py."""

    settings: Settings
    event_log: EventLog
    blobs: BlobStore
    episodic: EpisodicService
    metric: Callable[[str, float], None] = lambda name, value: None
    """Where domain metrics go (the guardrail events); Lambda handlers point it at Powertools."""

    @cached_property
    def semantic(self) -> SemanticService:
        from agentmem.semantic_wiring import build_semantic

        return build_semantic(self.settings)

    @cached_property
    def context(self) -> ContextService:
        from agentmem.adapters.tokens import count_tokens
        from agentmem.context.service import ContextService
        from agentmem.context.session_window import SessionWindows

        available = self.settings.procedural_enabled
        return ContextService(
            self.event_log,
            self.episodic,
            lambda: self.semantic,
            count_tokens,
            skills=(lambda: self.skill_search) if available else None,
            windows=SessionWindows(self.event_log, size=self.settings.context_window_events),
        )

    @cached_property
    def skills(self) -> StampedLibrary:
        """The procedural tier's library, built on first use: SQLite locally, the log's DynamoDB
        table on AWS (its items carry the stream the projector indexes them from)."""
        if self.settings.backend == "aws":
            from agentmem.adapters.aws.dynamodb_skills import DynamoDbSkillLibrary

            return DynamoDbSkillLibrary(
                self.settings.table_name, self.settings.tenant_id, client=self.aws_client("dynamodb")
            )
        from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary

        return SqliteSkillLibrary(self.database(), self.settings.tenant_id)

    @cached_property
    def skill_index(self) -> SkillIndex:
        """Where skill search looks: FTS5 + an exact vector matrix locally, OpenSearch on AWS."""
        if self.settings.backend == "aws":
            from agentmem.adapters.aws.opensearch_client import opensearch_client
            from agentmem.adapters.aws.opensearch_skill_index import OpenSearchSkillIndex

            return OpenSearchSkillIndex(
                opensearch_client(self.settings),
                self.settings.tenant_id,
                prefix=self.settings.opensearch_prefix,
                dimension=self.semantic.embedder.dimensions,
            )
        from agentmem.adapters.local.sqlite_skill_index import SqliteSkillIndex

        return SqliteSkillIndex(self.database(), self.settings.tenant_id)

    @cached_property
    def skill_search(self) -> SkillSearch:
        """Search of the procedural tier, embedding with the semantic tier's embedder (loaded on
        first need). Locally the index catches up on each search; on AWS the stream projector
        keeps it current, so a search only reads."""
        from agentmem.adapters.tokens import count_tokens
        from agentmem.procedural.search import SkillSearch

        return SkillSearch(
            self.skills,
            self.skill_index,
            lambda: self.semantic.embedder,
            count_tokens,
            sync_on_search=self.settings.backend == "local",
        )

    @cached_property
    def skill_review(self) -> ReviewService:
        """Review of a session into draft skills, through the LLM port's review duty."""
        from agentmem.procedural.review import ReviewService
        from agentmem.semantic_wiring import build_reviewer

        return ReviewService(self.episodic, self.skills, build_reviewer(self.settings))

    @cached_property
    def composer(self) -> ComposerService:
        """The composer over the tenant's catalogue. Locally the asset index catches up before each
        compose; on AWS the stream projector keeps it current."""
        from agentmem.compose_wiring import build_composer

        return build_composer(self)

    def database(self) -> SqliteDatabase:
        """The local SQLite file every local adapter shares (one per path per process)."""
        from agentmem.adapters.local.sqlite_db import open_database

        return open_database(
            self.settings.data_dir / "agentmem.db", synchronous=self.settings.sqlite_synchronous
        )

    def aws_client(self, service: Literal["dynamodb"]) -> DynamoDBClient:
        import boto3

        session = boto3.session.Session(region_name=self.settings.aws_region)
        return session.client(service, endpoint_url=self.settings.endpoint_url)


def _local_adapters(settings: Settings) -> tuple[EventLog, BlobStore]:
    from agentmem.adapters.local.blob_folder import FolderBlobStore
    from agentmem.adapters.local.sqlite_db import open_database
    from agentmem.adapters.local.sqlite_log import SqliteEventLog

    db = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)
    return SqliteEventLog(db, settings.tenant_id), FolderBlobStore(settings.data_dir / "blobs")


def _aws_adapters(settings: Settings) -> tuple[EventLog, BlobStore]:
    # Imported here so the local backend never pays for boto3 clients it does not use.
    import boto3

    from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
    from agentmem.adapters.aws.s3_blobs import S3BlobStore

    session = boto3.session.Session(region_name=settings.aws_region)
    dynamodb = session.client("dynamodb", endpoint_url=settings.endpoint_url)
    s3 = session.client("s3", endpoint_url=settings.endpoint_url)
    return (
        DynamoDbEventLog(settings.table_name, settings.tenant_id, client=dynamodb),
        S3BlobStore(settings.bucket_name, client=s3),
    )


def bootstrap(
    settings: Settings | None = None,
    *,
    event_log: EventLog | None = None,
    blob_store: BlobStore | None = None,
) -> Services:
    """Build the services for `settings` (read from the environment when omitted). Tests pass
    adapters in directly; anything not passed is built for the configured backend."""
    settings = settings or Settings.from_env()
    if event_log is None or blob_store is None:
        built_log, built_blobs = (_aws_adapters if settings.backend == "aws" else _local_adapters)(settings)
        event_log = event_log or built_log
        blob_store = blob_store or built_blobs
    limits = EpisodicLimits(
        inline_max_bytes=settings.inline_max_bytes, max_request_bytes=settings.max_request_bytes
    )
    return Services(
        settings=settings,
        event_log=event_log,
        blobs=blob_store,
        episodic=EpisodicService(event_log, blob_store, limits),
    )
