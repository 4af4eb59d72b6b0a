"""Lambda entry point for the read routes (beliefs, deep health, OpenAPI document): all in agentmem.api."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.api.app import build_resolver
from agentmem.bootstrap import bootstrap
from agentmem.observability import configure, logger, metrics, tracer

configure()
# Every route, so the OpenAPI document served from here lists the whole API. The semantic tier (OpenSearch,
# Bedrock, tiktoken) is still built on first use, not at import.
app = build_resolver(bootstrap())


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    response = app.resolve(event, context)
    metrics.add_metric(name=f"Http{response['statusCode'] // 100}xx", unit=MetricUnit.Count, value=1)
    return response
