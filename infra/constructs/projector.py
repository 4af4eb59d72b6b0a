"""The projector: the log table's stream feeds a function that folds each new event into the belief index.

Delivery is at least once and ordered per item key; projection is idempotent, so a record delivered again
changes nothing. A record that keeps failing never blocks its shard: the function reports it as a batch
item failure, Lambda bisects and retries a bounded number of times, then sends the batch's shard id and
sequence number range to the dead-letter queue and moves on. The record itself stays in the log (the
stream keeps it 24 h, the table for good), so `agentmem redrive` (within the 24 h) or `agentmem catch-up`
(from the table) projects it later (docs/deploy.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.bedrock import BedrockModels
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.monitoring import dead_letter_alarm
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge
from infra.paths import FUNCTIONS_DIR

# One Converse extraction (about 1-2 s) plus embeddings and index writes per event, one event at a time:
# 25 events fit the timeout with room to spare, where 50 would not.
BATCH_SIZE = 25
TIMEOUT = cdk.Duration.seconds(90)
RETRY_ATTEMPTS = 5
# Older records go to the dead-letter queue rather than hold the shard back; the stream keeps 24 h.
MAX_RECORD_AGE = cdk.Duration.hours(6)
DLQ_RETENTION = cdk.Duration.days(14)

# Only appended events invoke the function: session heads, idempotency records and every MODIFY/REMOVE
# are dropped by Lambda before an invocation is paid for. (The handler checks again.)
EVENT_INSERTS = lambda_.FilterCriteria.filter(
    {
        "eventName": lambda_.FilterRule.is_equal("INSERT"),
        "dynamodb": {"NewImage": {"entity": {"S": lambda_.FilterRule.is_equal("event")}}},
    }
)


def key_prefixes(pk: str, sk: str) -> Mapping[str, Any]:
    """Any change (insert, modify, remove) to an item whose keys start so: a REMOVE record carries
    only its keys, so library filters match on keys, never on the image."""
    return lambda_.FilterCriteria.filter(
        {
            "dynamodb": {
                "Keys": {
                    "pk": {"S": lambda_.FilterRule.begins_with(pk)},
                    "sk": {"S": lambda_.FilterRule.begins_with(sk)},
                }
            }
        }
    )


ASSET_CHANGES = key_prefixes("CATALOGUE#", "A#")
SKILL_CHANGES = [key_prefixes("SKILLS#", "FN#"), key_prefixes("SKILLS#", "GD#")]


class Projector(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: TenantConfig,
        storage: Storage,
        layers: Layers,
        vectors: SearchDomain,
        models: BedrockModels,
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self.dead_letters = self._build_dead_letter_queue()
        self.function = self._build_function(storage, layers, vectors, models)
        self._subscribe(storage)
        self.dead_letter_alarm = self._build_dead_letter_alarm()

    def _build_dead_letter_queue(self) -> sqs.Queue:
        queue = sqs.Queue(
            self,
            "DeadLetters",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=DLQ_RETENTION,
            removal_policy=cdk.RemovalPolicy.RETAIN if self._config.retain else cdk.RemovalPolicy.DESTROY,
        )
        acknowledge(
            queue,
            "AwsSolutions-SQS3",
            "This queue is the stream's on-failure destination (a dead-letter queue); it needs none itself.",
        )
        return queue

    def _build_function(
        self, storage: Storage, layers: Layers, vectors: SearchDomain, models: BedrockModels
    ) -> AgentmemFunction:
        projector = AgentmemFunction(
            self,
            "Function",
            config=self._config,
            code_dir=FUNCTIONS_DIR / "projector",
            layers=layers.all,
            description="agentmem projector: log stream -> facts -> belief index (OpenSearch)",
            environment={
                "AGENTMEM_TABLE_NAME": storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": storage.bucket.bucket_name,
                **storage.vector_environment,
                **vectors.environment,
                **models.environment,
            },
            memory_size=1024,
            timeout=TIMEOUT,
        )
        vectors.grant_write(projector.role)
        models.grant_invoke(projector.role, projector)
        # Library and catalogue records are re-read from the table (a stream image may be stale).
        storage.grant_library_read(projector.role)
        # A failing event says so where reads and the deep health check look (entrypoints/stream_status).
        storage.grant_status_write(projector.role)
        # The projection step that moves a belief marks what was built on it (docs/stale-dependents.md).
        storage.grant_dependents_mark(projector.role)
        # Texts embedded before (a redelivered batch, a repeated phrase) are not embedded again; a
        # subject erased while its batch was embedding is forgotten from the cache again.
        storage.grant_vector_cache(projector.role)
        return projector

    def _subscribe(self, storage: Storage) -> None:
        self.function.invocable.add_event_source(
            sources.DynamoEventSource(
                storage.table,
                starting_position=lambda_.StartingPosition.TRIM_HORIZON,
                batch_size=BATCH_SIZE,
                bisect_batch_on_error=True,
                retry_attempts=RETRY_ATTEMPTS,
                max_record_age=MAX_RECORD_AGE,
                report_batch_item_failures=True,
                on_failure=sources.SqsDlq(self.dead_letters),
                # At most 5 filters per event source; they are ORed.
                filters=[EVENT_INSERTS, ASSET_CHANGES, *(SKILL_CHANGES if self._config.procedural else [])],
            )
        )
        # Replaces AgentmemFunction's acknowledgment of the same finding on this role: the event source adds
        # dynamodb:ListStreams to the role's `*` statement.
        acknowledge(
            self.function.role,
            "AwsSolutions-IAM5",
            "X-Ray PutTraceSegments/PutTelemetryRecords and dynamodb:ListStreams (which the stream event "
            "source needs) support no resource-level permissions.",
            "Resource::*",
        )

    def _build_dead_letter_alarm(self) -> cloudwatch.Alarm:
        return dead_letter_alarm(
            self,
            self.dead_letters,
            f"agentmem {self._config.tenant}: stream records the projector gave up on. Each message "
            "names a shard and sequence range; those events are in the log but not in the belief index.",
        )
