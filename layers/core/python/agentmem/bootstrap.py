"""The one place that picks and wires adapters. Handlers, the local server and tests call it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.ports import BlobStore, EventLog
from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary
    from agentmem.context.service import ContextService
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

    @cached_property
    def semantic(self) -> SemanticService:
        from agentmem.semantic_wiring import build_semantic

        return build_semantic(self.settings)

    @cached_property
    def context(self) -> ContextService:
        from agentmem.context.service import ContextService
        from agentmem.tokens import count_tokens

        available = self.settings.backend == "local" and self.settings.procedural_enabled
        return ContextService(
            self.event_log,
            self.episodic,
            lambda: self.semantic,
            count_tokens,
            skills=(lambda: self.skill_search) if available else None,
        )

    @cached_property
    def skills(self) -> SqliteSkillLibrary:
        """The procedural tier's library, built on first use. Local only so far: the API serves
        its routes only on the local backend (see api.app)."""
        from agentmem.adapters.local.sqlite_db import open_database
        from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary

        db = open_database(
            self.settings.data_dir / "agentmem.db", synchronous=self.settings.sqlite_synchronous
        )
        return SqliteSkillLibrary(db, self.settings.tenant_id)

    @cached_property
    def skill_search(self) -> SkillSearch:
        """Search of the procedural tier (local only, like `skills`): its index lives in the same
        SQLite file and embeds with the semantic tier's embedder, loaded on first need."""
        from agentmem.adapters.local.sqlite_db import open_database
        from agentmem.adapters.local.sqlite_skill_index import SqliteSkillIndex
        from agentmem.procedural.search import SkillSearch
        from agentmem.tokens import count_tokens

        db = open_database(
            self.settings.data_dir / "agentmem.db", synchronous=self.settings.sqlite_synchronous
        )
        index = SqliteSkillIndex(db, self.settings.tenant_id)
        return SkillSearch(self.skills, index, lambda: self.semantic.embedder, count_tokens)


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
