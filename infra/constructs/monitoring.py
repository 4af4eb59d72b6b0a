"""Alarms and a dashboard for one tenant stack: every alarm notifies one SNS topic, on ALARM and on OK.

What is watched, and why each threshold (docs/deploy.md says what to do when one fires):

- dead-letter queues (the constructs that own them build those alarms; `notify` adds the action):
  any message means work that was given up on;
- the projector's iterator age: the belief index falls behind the log;
- errors and throttles of every function: unhandled faults (handlers answer domain errors
  themselves, so an Error is a bug or a backend outage) and concurrency limits;
- the API's 5xx count and p99 latency, as callers see them;
- the OpenSearch domain: red status (a primary shard unassigned: searches and writes fail), yellow
  status (a replica unassigned: one more node loss loses data; only with two or more data nodes,
  since a single node can never place replicas), free storage and JVM memory pressure.

Alarm names are left to CloudFormation (stack name + logical id + suffix), so tenants never collide.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.dashboard import PERIOD, Watched, build_dashboard

# The projector is behind when its oldest unprocessed record is this old for three periods in a row.
# Records older than the event source's max record age (6 h) are dead-lettered instead.
ITERATOR_AGE_MS = 10 * 60 * 1000
# Over the read path's usual seconds (a compose with an LLM step included); API Gateway gives up at 29 s.
API_P99_LATENCY_MS = 10_000
# AWS's recommended OpenSearch alarms: free storage under 25% of a node's volume; JVM pressure at 95%
# for three minutes (the next step is a node falling over with an out-of-memory error).
FREE_STORAGE_FRACTION = 0.25
JVM_PRESSURE_PERCENT = 95


def dead_letter_alarm(scope: Construct, queue: sqs.IQueue, description: str) -> cloudwatch.Alarm:
    """Any visible message in a dead-letter queue: work given up on. Built by the construct that owns
    the queue (projector, erasure); `Monitoring.notify` points it at the topic."""
    return cloudwatch.Alarm(
        scope,
        "DeadLettersAlarm",
        alarm_description=description,
        metric=queue.metric_approximate_number_of_messages_visible(
            period=cdk.Duration.minutes(5), statistic=cloudwatch.Stats.MAXIMUM
        ),
        threshold=0,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluation_periods=1,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
    )


class Monitoring(Construct):
    """The alarm topic, the alarms and the dashboard; `notify` sends an alarm built elsewhere to the topic."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: TenantConfig,
        watched: Watched,
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self.topic = self._build_topic()
        self.alarms: dict[str, cloudwatch.Alarm] = {}
        for _, alarm in watched.dead_letters.values():
            self.notify(alarm)
        self._alarm(
            "ProjectorIteratorAge",
            "the projector is more than 10 minutes behind the log: beliefs and indexes are stale",
            watched.projector.metric("IteratorAge", period=PERIOD, statistic=cloudwatch.Stats.MAXIMUM),
            threshold=ITERATOR_AGE_MS,
            evaluation_periods=3,
        )
        for name, function in watched.functions.items():
            self._function_alarms(name, function)
        self._api_alarms(watched.api)
        self._search_alarms(watched.domain)
        self.dashboard = build_dashboard(self, "Dashboard", config=config, watched=watched)

    def notify(self, alarm: cloudwatch.Alarm) -> None:
        action = actions.SnsAction(self.topic)
        alarm.add_alarm_action(action)
        alarm.add_ok_action(action)

    def _build_topic(self) -> sns.ITopic:
        if self._config.alarm_topic_arn:
            return sns.Topic.from_topic_arn(self, "AlarmTopic", self._config.alarm_topic_arn)
        topic = sns.Topic(
            self, "AlarmTopic", display_name=f"agentmem {self._config.tenant} alarms", enforce_ssl=True
        )
        # No KMS key: notifications carry alarm names and metric values, no tenant data, and CloudWatch cannot
        # publish to a topic under the AWS-managed SNS key (a customer key per tenant would cost more).
        if self._config.alarm_email:
            topic.add_subscription(subscriptions.EmailSubscription(self._config.alarm_email))
        return topic

    def _alarm(
        self,
        construct_id: str,
        what: str,
        metric: cloudwatch.IMetric,
        *,
        threshold: float,
        evaluation_periods: int = 1,
        datapoints_to_alarm: int | None = None,
        comparison: cloudwatch.ComparisonOperator = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        missing: cloudwatch.TreatMissingData = cloudwatch.TreatMissingData.NOT_BREACHING,
    ) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self,
            construct_id,
            alarm_description=f"agentmem {self._config.tenant}: {what}",
            metric=metric,
            threshold=threshold,
            comparison_operator=comparison,
            evaluation_periods=evaluation_periods,
            datapoints_to_alarm=datapoints_to_alarm,
            treat_missing_data=missing,
        )
        self.notify(alarm)
        self.alarms[construct_id] = alarm
        return alarm

    def _function_alarms(self, name: str, function: lambda_.Function) -> None:
        label = name.capitalize()
        # Two of the last three periods: one stray fault (a cold start timing out) does not page anyone.
        self._alarm(
            f"{label}Errors",
            f"the {name} function fails (unhandled errors or timeouts); see its log group",
            function.metric_errors(period=PERIOD, statistic=cloudwatch.Stats.SUM),
            threshold=0,
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )
        self._alarm(
            f"{label}Throttles",
            f"the {name} function is throttled: raise its reserved concurrency or the account limit",
            function.metric_throttles(period=PERIOD, statistic=cloudwatch.Stats.SUM),
            threshold=0,
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )

    def _api_alarms(self, api: apigw.RestApi) -> None:
        self._alarm(
            "Api5xx",
            "the API answers 5xx (backend faults, throttled backends, integration timeouts)",
            api.metric_server_error(period=PERIOD, statistic=cloudwatch.Stats.SUM),
            threshold=0,
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )
        self._alarm(
            "ApiLatencyP99",
            f"the API's p99 latency is over {API_P99_LATENCY_MS // 1000} s",
            api.metric_latency(period=PERIOD, statistic=cloudwatch.Stats.p(99)),
            threshold=API_P99_LATENCY_MS,
            evaluation_periods=3,
        )

    def _search_alarms(self, domain: opensearch.Domain) -> None:
        minute = cdk.Duration.minutes(1)
        capacity = self._config.search_capacity
        # OpenSearch Service stops publishing when the domain is unreachable: missing data is itself bad.
        self._alarm(
            "SearchClusterRed",
            "the OpenSearch cluster is red: a primary shard is unassigned, reads and projection fail",
            domain.metric_cluster_status_red(period=minute, statistic=cloudwatch.Stats.MAXIMUM),
            threshold=1,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            missing=cloudwatch.TreatMissingData.BREACHING,
        )
        if capacity.zone_aware:
            self._alarm(
                "SearchClusterYellow",
                "the OpenSearch cluster is yellow: a replica is unassigned, one more node loss loses data",
                domain.metric_cluster_status_yellow(period=minute, statistic=cloudwatch.Stats.MAXIMUM),
                threshold=1,
                comparison=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                evaluation_periods=5,
            )
        free_mb = capacity.volume_gib * 1024 * FREE_STORAGE_FRACTION
        self._alarm(
            "SearchFreeStorage",
            f"an OpenSearch node has under {int(FREE_STORAGE_FRACTION * 100)}% of its volume free; at 20 GiB "
            "or 5% OpenSearch blocks writes (projection then fails): raise searchVolumeGib",
            domain.metric_free_storage_space(period=minute, statistic=cloudwatch.Stats.MINIMUM),
            threshold=free_mb,
            comparison=cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
            missing=cloudwatch.TreatMissingData.BREACHING,
        )
        self._alarm(
            "SearchJvmPressure",
            f"OpenSearch JVM memory pressure is at {JVM_PRESSURE_PERCENT}%: a node may run out of memory; "
            "use a larger searchInstanceType",
            domain.metric_jvm_memory_pressure(period=minute, statistic=cloudwatch.Stats.MAXIMUM),
            threshold=JVM_PRESSURE_PERCENT,
            comparison=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluation_periods=3,
        )
