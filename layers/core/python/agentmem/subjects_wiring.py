"""Erasure, export and retention, wired from Settings for either backend. Kept apart from
bootstrap so that no other path imports them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentmem.errors import BackendUnavailableError
from agentmem.settings import Settings
from agentmem.subjects.erasure import ErasureService, Tier
from agentmem.subjects.export import SubjectExport
from agentmem.subjects.ports import ErasureLedger, ErasureScheduler, SubjectLog
from agentmem.subjects.tiers import clear_caches, forget_conversations, forget_review_drafts

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from agentmem.bootstrap import Services
    from agentmem.compose.ports import ConversationMemory
    from agentmem.semantic.ports import BeliefStore, ObservationSnapshot, PassageStore, RetentionSweeper


def build_erasure_ledger(settings: Settings) -> ErasureLedger:
    if settings.backend == "aws":
        import boto3

        from agentmem.adapters.aws.dynamodb_erasures import DynamoDbErasureLedger

        session = boto3.session.Session(region_name=settings.aws_region)
        client = session.client("dynamodb", endpoint_url=settings.endpoint_url)
        return DynamoDbErasureLedger(settings.table_name, settings.tenant_id, client=client)
    from agentmem.adapters.local.sqlite_db import open_database
    from agentmem.adapters.local.sqlite_erasures import SqliteErasureLedger

    db = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)
    return SqliteErasureLedger(db, settings.tenant_id)


def build_late_purge(
    settings: Settings, store: BeliefStore, passages: PassageStore | None = None
) -> Callable[[str], int]:
    """What projection runs on a subject erased while it was writing: the store's forget, and
    locally a compaction too, or the late write's bytes could outlive the erasure in the WAL.
    A compaction that finds the WAL busy is left to a repeat of the erasure."""

    def forget(subject_id: str) -> int:
        # The history passages hold the subject's words as much as the beliefs do.
        erased_passages = passages.erase_subject(subject_id) if passages is not None else 0
        return store.forget_subject(subject_id) + erased_passages

    if settings.backend == "aws":
        return forget
    from agentmem.adapters.local.sqlite_db import open_database

    database = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)

    def forget_and_compact(subject_id: str) -> int:
        removed = forget(subject_id)
        try:
            database.compact()
        except BackendUnavailableError:
            logger.warning("late purge could not compact; repeat the erasure to finish it")
        return removed

    return forget_and_compact


def build_subject_log(services: Services) -> SubjectLog:
    settings = services.settings
    if settings.backend == "aws":
        from agentmem.adapters.aws.dynamodb_subject_log import DynamoDbSubjectLog

        return DynamoDbSubjectLog(
            settings.table_name, settings.tenant_id, client=services.aws_client("dynamodb")
        )
    from agentmem.adapters.local.sqlite_subject_log import SqliteSubjectLog

    return SqliteSubjectLog(services.database(), settings.tenant_id)


def _conversations(services: Services) -> ConversationMemory:
    settings = services.settings
    if settings.backend == "aws":
        from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbConversationMemory

        return DynamoDbConversationMemory(
            settings.table_name, settings.tenant_id, client=services.aws_client("dynamodb")
        )
    from agentmem.adapters.local.sqlite_catalogue import SqliteConversationMemory

    return SqliteConversationMemory(services.database(), settings.tenant_id)


def _scheduler(settings: Settings) -> ErasureScheduler | None:
    if settings.backend != "aws" or not settings.erasure_queue_url:
        return None
    from agentmem.adapters.aws.sqs_erasure_queue import SqsErasureScheduler

    return SqsErasureScheduler(settings.erasure_queue_url, region=settings.aws_region)


def build_erasure(services: Services) -> ErasureService:
    """Tiers in the order ErasureService runs them; `storage` (local only) compacts the file."""
    settings = services.settings
    derived: list[Tier] = [("beliefs", lambda fp: services.semantic.store.forget_subject(fp.subject_id))]
    if services.semantic.passages is not None:
        passages = services.semantic.passages
        derived.append(("history_passages", lambda fp: passages.erase_subject(fp.subject_id)))
    if settings.procedural_enabled:
        derived.append(("skill_drafts", lambda fp: forget_review_drafts(services.skills, fp)))
    conversations = _conversations(services)
    derived.append(("conversations", lambda fp: forget_conversations(conversations, fp)))
    # Only a context service this process has built holds windows; building one here would not.
    cleanup: list[Tier] = [
        ("caches", lambda fp: clear_caches(services.__dict__["context"].windows, fp)
         if "context" in services.__dict__ else 0)
    ]  # fmt: skip
    if settings.backend == "local":
        database = services.database()
        cleanup.append(("storage", lambda _: database.compact()))
    return ErasureService(
        settings.tenant_id,
        build_erasure_ledger(settings),
        build_subject_log(services),
        services.blobs,
        derived=derived,
        cleanup=cleanup,
        scheduler=_scheduler(settings),
    )


def build_export(services: Services) -> SubjectExport:
    return SubjectExport(
        build_subject_log(services),
        build_erasure_ledger(services.settings),
        lambda: services.semantic.store.active(),  # noqa: PLW0108 - builds the tier on first use
        services.blobs,
    )


def build_snapshot(services: Services) -> ObservationSnapshot | None:
    """The observations retention kept (local; on AWS the observation index keeps them)."""
    if services.settings.backend == "aws":
        return None
    from agentmem.adapters.local.sqlite_retention import SqliteObservationSnapshot

    return SqliteObservationSnapshot(services.database(), services.settings.tenant_id)


def build_retention(services: Services) -> RetentionSweeper | None:
    """The local worker's sweep, when the tenant set a retention (AWS: DynamoDB TTL, S3 lifecycle)."""
    settings = services.settings
    if settings.retention_days is None or settings.backend == "aws":
        return None
    from agentmem.adapters.local.sqlite_retention import SqliteRetention

    return SqliteRetention(
        services.database(), settings.tenant_id, services.blobs, retention_days=settings.retention_days
    )
