"""The HTTP Lambda entry points: one resolver per function, holding only that function's routes
(agentmem.api.app.build_resolver), inside the Powertools decorators, with a count of responses by
status class. Each `functions/<name>/handler.py` is one call of `lambda_handler`."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from agentmem.api.app import FunctionName, build_resolver
from agentmem.entrypoints.observability import configure, logger, metrics, traced
from agentmem.wiring import Services, bootstrap

Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def count_metric(name: str, value: float) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def with_metrics(services: Services) -> Services:
    """Domain metrics (the composer's guardrail events) go out as CloudWatch EMF."""
    services.metric = count_metric
    return services


def http_handler(app: APIGatewayRestResolver) -> Handler:
    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
    @traced
    @metrics.log_metrics
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        response = app.resolve(event, context)
        count_metric(f"Http{response['statusCode'] // 100}xx", 1)
        return response

    return handler


def lambda_handler(function: FunctionName) -> Handler:
    """The handler of HTTP function `function`, built at import (once per cold start) from the
    environment's settings."""
    configure()
    services = with_metrics(bootstrap())
    if os.environ.get(INITIALIZATION_TYPE) in PREINITIALIZED:
        prime(services)
    return http_handler(build_resolver(services, function=function))


# Lambda's name for how this environment is being initialized: `on-demand` in front of a waiting
# request, or ahead of any request for provisioned concurrency and SnapStart.
INITIALIZATION_TYPE = "AWS_LAMBDA_INITIALIZATION_TYPE"
PREINITIALIZED = frozenset({"provisioned-concurrency", "snap-start"})


def prime(services: Services) -> None:
    """Build the log's client now (importing boto3 with it) rather than in the first request. Only
    where nobody waits for the init: on demand, the ports stay lazy, as bootstrap() builds them."""
    _ = services.episodic
