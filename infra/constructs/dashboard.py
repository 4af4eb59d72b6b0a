"""The tenant's CloudWatch dashboard, one row per path: write (API, write function, log table), projection
(stream lag, projector failures, dead letters, OpenSearch health) and read (function durations and errors,
search latency). Alarms are in infra/constructs/monitoring.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import TenantConfig

PERIOD = cdk.Duration.minutes(5)


@dataclass(frozen=True)
class Watched:
    """What a tenant's alarms and dashboard watch. `functions` are keyed by a short name (`write`, `read`...)
    and must hold `write`; `dead_letters` maps a queue's owner to the queue and the alarm built on it."""

    api: apigw.RestApi
    functions: Mapping[str, lambda_.Function]
    projector: lambda_.Function
    domain: opensearch.Domain
    dead_letters: Mapping[str, tuple[sqs.Queue, cloudwatch.Alarm]]
    table: dynamodb.Table


def build_dashboard(
    scope: Construct, construct_id: str, *, config: TenantConfig, watched: Watched
) -> cloudwatch.Dashboard:
    api, functions, projector = watched.api, watched.functions, watched.projector
    domain, dead_letters, table = watched.domain, watched.dead_letters, watched.table

    def graph(
        title: str, *metrics: cloudwatch.IMetric, right: list[cloudwatch.IMetric] | None = None
    ) -> cloudwatch.GraphWidget:
        return cloudwatch.GraphWidget(title=title, left=list(metrics), right=right or [], width=8)

    def per_function(metric: str, statistic: str) -> list[cloudwatch.IMetric]:
        return [
            fn.metric(metric, period=PERIOD, statistic=statistic, label=name)
            for name, fn in functions.items()
        ]

    write = functions["write"]
    dashboard = cloudwatch.Dashboard(
        scope,
        construct_id,
        # Dashboards are global to the account: the region keeps one tenant's stacks in two regions apart.
        dashboard_name=f"{config.stack_name}-{cdk.Stack.of(scope).region}",
        default_interval=cdk.Duration.hours(6),
    )
    dashboard.add_widgets(
        cloudwatch.TextWidget(
            markdown="## Write path: API -> write function -> DynamoDB log", width=24, height=1
        )
    )
    dashboard.add_widgets(
        graph(
            "API requests and errors",
            api.metric_count(period=PERIOD),
            api.metric_client_error(period=PERIOD),
            api.metric_server_error(period=PERIOD),
        ),
        graph(
            "API latency (ms)",
            api.metric_latency(period=PERIOD, statistic="p50", label="p50"),
            api.metric_latency(period=PERIOD, statistic="p99", label="p99"),
            api.metric_integration_latency(period=PERIOD, statistic="p99", label="integration p99"),
        ),
        graph(
            "Write function and log table",
            write.metric_duration(period=PERIOD, statistic="p99", label="write p99 (ms)"),
            right=[
                table.metric_consumed_write_capacity_units(period=PERIOD, label="write units"),
                table.metric("ThrottledRequests", period=PERIOD, statistic="Sum", label="throttled"),
            ],
        ),
    )
    dashboard.add_widgets(
        cloudwatch.TextWidget(
            markdown="## Projection path: stream -> projector -> OpenSearch: lag, failures, dead letters",
            width=24,
            height=1,
        )
    )
    dashboard.add_widgets(
        graph(
            "Projector lag and failures",
            projector.metric("IteratorAge", period=PERIOD, statistic="Maximum", label="iterator age (ms)"),
            right=[
                projector.metric_errors(period=PERIOD, label="errors"),
                *(
                    queue.metric_approximate_number_of_messages_visible(period=PERIOD, label=f"{name} DLQ")
                    for name, (queue, _) in dead_letters.items()
                ),
            ],
        ),
        graph(
            "OpenSearch health",
            domain.metric_cluster_status_red(period=PERIOD, label="red"),
            domain.metric_cluster_status_yellow(period=PERIOD, label="yellow"),
            right=[domain.metric_jvm_memory_pressure(period=PERIOD, label="JVM pressure %")],
        ),
        graph(
            "OpenSearch storage and indexing",
            domain.metric_free_storage_space(period=PERIOD, label="free storage (MB)"),
            right=[domain.metric_indexing_latency(period=PERIOD, label="indexing latency (ms)")],
        ),
    )
    dashboard.add_widgets(
        cloudwatch.TextWidget(
            markdown="## Read path: read, skills and compose functions; OpenSearch search",
            width=24,
            height=1,
        )
    )
    dashboard.add_widgets(
        graph("Function p99 duration (ms)", *per_function("Duration", "p99")),
        graph("Function errors", *per_function("Errors", "Sum")),
        graph(
            "Throttles and search latency",
            *per_function("Throttles", "Sum"),
            right=[domain.metric_search_latency(period=PERIOD, label="search latency (ms)")],
        ),
    )
    return dashboard
