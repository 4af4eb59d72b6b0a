"""The stream projector's Lambda entry point: each record of the log table's DynamoDB stream
projects an inserted event into the semantic tier, or re-indexes the function, guidance or asset
it names (the skill library and the catalogue share the table; their search indexes are
projections too).

Records arrive as Powertools' typed `DynamoDBRecord`. A record that raises is reported in
`batchItemFailures` (partial batch failure): Lambda retries from it, bisecting the batch, and once
retries run out sends its shard and sequence range to the on-failure queue. Projection is
idempotent, so records delivered again change nothing.

An event that fails still has its history passages indexed (the projector does so apart from
extraction), and marks projection failing in the shared status (`stream_status`), which the read
function's trace and `/v1/health/deep` report until an event projects again."""

from __future__ import annotations

from collections.abc import Callable

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.adapters.aws.dynamodb_catalogue_items import asset_id_of
from agentmem.adapters.aws.dynamodb_items import item_to_event
from agentmem.adapters.aws.dynamodb_skills import skill_key_of
from agentmem.entrypoints.observability import configure, logger, metrics, traced
from agentmem.entrypoints.stream_status import StreamStatus
from agentmem.semantic.health import prepare_for_writes
from agentmem.wiring import Services

StreamHandler = Callable[[dict[str, object], LambdaContext], PartialItemFailureResponse]


def prepare(services: Services) -> None:
    """Create what the projector writes before its first record: the read functions may only
    read these indexes, so the writer creates them and seeds the belief probe."""
    prepare_for_writes(services.semantic)
    semantic = services.semantic
    if semantic.passages is not None:  # the history source's index, beside the active beliefs
        semantic.passages.generation(semantic.store.active().generation)
    if services.settings.procedural_enabled:
        services.skill_index.ensure_ready()
    services.composer.index.ensure_ready()


def _count(name: str) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)


def _reindex(what: str, run: Callable[[], tuple[int, int]], where: dict[str, str]) -> None:
    """Insert, modify and remove alike: the item is read again from the table, so a redelivered
    or out-of-order record changes nothing."""
    try:
        embedded, removed = run()
    except Exception:
        logger.exception("library record failed", extra={"library": what, **where})
        _count("StreamRecordsFailed")
        raise
    logger.debug(
        "library record indexed", extra={"library": what, "embedded": embedded, "removed": removed, **where}
    )
    _count(f"{what.capitalize()}sIndexed")


def project_record(services: Services, record: DynamoDBRecord, status: StreamStatus | None = None) -> None:
    """One record. Raises to be retried (and reported in the batch's failures); an event's
    outcome goes to `status`."""
    stream = record.dynamodb
    if stream is None or record.event_name is None:
        raise ValueError("a DynamoDB stream record without its dynamodb part or eventName")
    keys = stream.keys  # deserialized: plain strings
    pk, sk = str(keys.get("pk", "")), str(keys.get("sk", ""))
    where = {"event_name": record.event_name.name, "sequence_number": stream.sequence_number or ""}
    tenant = services.settings.tenant_id
    if (skill := skill_key_of(pk, sk, tenant)) is not None:
        if services.settings.procedural_enabled:
            where["skill_id"] = skill[1]
            _reindex("skill", lambda: services.skill_search.sync_keys([skill]), where)
        return
    if (asset_id := asset_id_of(pk, sk, tenant)) is not None:
        _reindex(
            "asset", lambda: services.composer.indexer.sync_ids([asset_id]), {**where, "asset_id": asset_id}
        )
        return
    # The image in the table's wire format ({"S": ...} values), which the log adapter reads.
    image = stream.raw_event.get("NewImage") or {}
    is_event = image.get("entity", {}).get("S") == "event" or sk.startswith("E#")
    if record.event_name is DynamoDBRecordEventName.REMOVE and is_event:
        # Retention (TTL, by dynamodb.amazonaws.com) or an erasure removed it. Beliefs distilled
        # from an expired event survive it; an erasure purges its subject's beliefs itself.
        identity = record.raw_event.get("userIdentity") or {}
        expired = identity.get("principalId") == "dynamodb.amazonaws.com"
        logger.debug("event removal ignored", extra={"expired": expired, **where})
        _count("StreamRecordsSkipped")
        return
    if record.event_name is not DynamoDBRecordEventName.INSERT or not is_event:
        # Heads and idempotency records are not events. The log is append-only: a changed event is a bug.
        (logger.warning if is_event else logger.debug)(
            "stream record skipped", extra={"is_event": is_event, **where}
        )
        _count("StreamRecordsSkipped")
        return
    event = None
    try:
        event = item_to_event(image)
        applied = services.semantic.project(event)
    except Exception as exc:
        logger.exception("stream record failed", extra=where)
        _count("StreamRecordsFailed")
        if status is not None and event is not None:  # an image that is no event is no projection's
            status.failed(event, exc)
        raise
    if status is not None:
        status.succeeded()
    logger.debug("event projected", extra={"beliefs_changed": len(applied), **where})
    _count("EventsProjected")


def stream_handler(services: Services) -> StreamHandler:
    """The projector's handler over `services`, prepared now (once per cold start)."""
    configure()
    prepare(services)
    processor = BatchProcessor(event_type=EventType.DynamoDBStreams)
    status = StreamStatus(lambda: services.ports.projection_status)

    def record_handler(record: DynamoDBRecord) -> None:
        project_record(services, record, status)

    @logger.inject_lambda_context
    @traced
    @metrics.log_metrics
    def handler(event: dict[str, object], context: LambdaContext) -> PartialItemFailureResponse:
        return process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )

    return handler
