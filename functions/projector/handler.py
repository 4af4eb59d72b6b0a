"""Lambda entry point for the log table's stream: project each new event into the semantic tier,
and re-index each changed function or guidance of the skill library and each changed asset of the
composer's catalogue (both share the table, and their search indexes are projections too).

A record that raises is reported in `batchItemFailures`. Lambda retries from it (bisecting the batch) and,
once retries run out, sends its shard and sequence range to the on-failure queue. Projection is
idempotent, so records that are delivered again change nothing."""

from __future__ import annotations

from collections.abc import Callable

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.adapters.aws.dynamodb_catalogue_items import asset_id_of
from agentmem.adapters.aws.dynamodb_items import item_to_event
from agentmem.adapters.aws.dynamodb_skills import skill_key_of
from agentmem.bootstrap import bootstrap
from agentmem.observability import configure, logger, metrics, tracer
from agentmem.semantic.health import prepare_for_writes

configure()
services = bootstrap()
# The read function may only read the belief index: the writer creates it and seeds the probe.
prepare_for_writes(services.semantic)
if services.settings.procedural_enabled:
    services.skill_index.ensure_ready()
services.composer.index.ensure_ready()
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def reindex(what: str, run: Callable[[], tuple[int, int]], where: dict[str, str]) -> None:
    """Insert, modify and remove alike: the item is read again from the table, so a redelivered
    or out-of-order record changes nothing."""
    try:
        embedded, removed = run()
    except Exception:
        logger.exception("library record failed", library=what, **where)
        metrics.add_metric(name="StreamRecordsFailed", unit=MetricUnit.Count, value=1)
        raise
    logger.debug("library record indexed", library=what, embedded=embedded, removed=removed, **where)
    metrics.add_metric(name=f"{what.capitalize()}sIndexed", unit=MetricUnit.Count, value=1)


def project_record(record: DynamoDBRecord) -> None:
    # The raw image: `record.dynamodb.new_image` is deserialized, and item_to_event reads {"S": ...} values.
    stream = record.raw_event["dynamodb"]
    image = stream.get("NewImage") or {}
    is_event = image.get("entity", {}).get("S") == "event" or stream["Keys"]["sk"]["S"].startswith("E#")
    where = {"event_name": record.raw_event["eventName"], "sequence_number": stream["SequenceNumber"]}
    keys, tenant = stream["Keys"], services.settings.tenant_id
    if (skill := skill_key_of(keys, tenant)) is not None:
        if services.settings.procedural_enabled:
            reindex(
                "skill", lambda: services.skill_search.sync_keys([skill]), {**where, "skill_id": skill[1]}
            )
        return
    if (asset_id := asset_id_of(keys, tenant)) is not None:
        reindex(
            "asset", lambda: services.composer.indexer.sync_ids([asset_id]), {**where, "asset_id": asset_id}
        )
        return
    if record.raw_event["eventName"] != "INSERT" or not is_event:
        # Heads and idempotency records are not events. The log is append-only: a changed event is a bug.
        (logger.warning if is_event else logger.debug)("stream record skipped", is_event=is_event, **where)
        metrics.add_metric(name="StreamRecordsSkipped", unit=MetricUnit.Count, value=1)
        return
    try:
        applied = services.semantic.project(item_to_event(image))
    except Exception:
        logger.exception("stream record failed", **where)
        metrics.add_metric(name="StreamRecordsFailed", unit=MetricUnit.Count, value=1)
        raise
    logger.debug("event projected", beliefs_changed=len(applied), **where)
    metrics.add_metric(name="EventsProjected", unit=MetricUnit.Count, value=1)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, object], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=project_record, processor=processor, context=context
    )
