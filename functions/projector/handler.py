"""Lambda entry point for the log table's stream: each record projects an event into the semantic
tier or re-indexes a skill or asset (agentmem.entrypoints.stream).

A record that raises is reported in `batchItemFailures`. Lambda retries from it (bisecting the batch) and,
once retries run out, sends its shard and sequence range to the on-failure queue. Projection is
idempotent, so records that are delivered again change nothing."""

from __future__ import annotations

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.entrypoints.observability import configure, logger, metrics, tracer
from agentmem.entrypoints.stream import prepare, project_record
from agentmem.wiring.bootstrap import bootstrap

configure()
services = bootstrap()
prepare(services)
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def record_handler(record: DynamoDBRecord) -> None:
    project_record(services, record.raw_event)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, object], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
