"""The erasure function's entry: the erasure routes from API Gateway, and the erasure queue.

A queue message names an accepted erasure; running it removes the subject tier by tier. An
erasure that did not finish every tier is reported as a batch item failure: SQS hands it back
after its visibility timeout, the repeat runs the tiers again (each is idempotent), and after
the last attempt the message goes to the dead-letter queue for an operator."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.api.app import build_resolver
from agentmem.entrypoints.lambda_http import Handler, http_handler
from agentmem.entrypoints.observability import logger, metrics, traced
from agentmem.errors import AgentMemError
from agentmem.wiring import Services


class ErasureIncompleteError(AgentMemError):
    code = "erasure_incomplete"


def erasure_handler(services: Services) -> Handler:
    http = http_handler(build_resolver(services, function="erasure"))
    processor = BatchProcessor(event_type=EventType.SQS)

    def run(record: SQSRecord) -> None:
        message = json.loads(record.body)
        outcome = services.erasure.run(str(message["erasure_id"]), str(message["subject_id"]))
        if outcome.state != "done":
            failed = sorted(name for name, tier in outcome.tiers.items() if tier.status != "done")
            raise ErasureIncompleteError(f"erasure {outcome.erasure_id}: {', '.join(failed)} not done yet")

    @logger.inject_lambda_context
    @traced
    @metrics.log_metrics
    def from_queue(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return dict(
            process_partial_response(event=event, record_handler=run, processor=processor, context=context)
        )

    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        return from_queue(event, context) if "Records" in event else http(event, context)

    return handler
