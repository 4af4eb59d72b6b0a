"""The erasure function: `DELETE /v1/subjects/{id}` accepts an erasure (tombstone first) and hands it
to a queue; the same function consumes the queue and erases the subject tier by tier.

Its role is the only one that may delete log items or blobs, and only in this tenant's log
partitions (DynamoDB's `dynamodb:LeadingKeys`): the sessions, the subject registry and the blob
references. The partition key is per session, not per subject, so no IAM condition can name one
subject's items; the tightest scope the key design allows is the tenant's partitions of those
kinds, with the erasure ledger and the library items it touches granted apart. The write function
keeps no delete right at all. An erasure that does not finish every tier goes back to the queue,
and after `MAX_RECEIVES` attempts to a dead-letter queue watched by an alarm."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.api import Api
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.monitoring import dead_letter_alarm
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge, logical_ref
from infra.paths import FUNCTIONS_DIR
from infra.routes import function_routes

# One subject at a time; a subject with a great many events may take minutes.
TIMEOUT = cdk.Duration.minutes(5)
# SQS hides a message for this long while the function works on it; Lambda asks for at least the
# function's timeout, and AWS recommends six times it for queues read by Lambda.
VISIBILITY = cdk.Duration.minutes(30)
MAX_RECEIVES = 5
DLQ_RETENTION = cdk.Duration.days(14)


class ErasureFunction(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: TenantConfig,
        storage: Storage,
        layers: Layers,
        api: Api,
        vectors: SearchDomain,
    ) -> None:
        super().__init__(scope, construct_id)
        removal = cdk.RemovalPolicy.RETAIN if config.retain else cdk.RemovalPolicy.DESTROY
        self.dead_letters = sqs.Queue(
            self, "DeadLetters", encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True,
            retention_period=DLQ_RETENTION, removal_policy=removal,
        )  # fmt: skip
        acknowledge(
            self.dead_letters,
            "AwsSolutions-SQS3",
            "This queue is the erasure queue's dead-letter queue; it needs none itself.",
        )
        self.queue = sqs.Queue(
            self, "Queue", encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True,
            visibility_timeout=VISIBILITY, removal_policy=removal,
            dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=MAX_RECEIVES, queue=self.dead_letters),
        )  # fmt: skip
        self.function = AgentmemFunction(
            self,
            "Function",
            config=config,
            code_dir=FUNCTIONS_DIR / "erasure",
            layers=layers.all,
            description="agentmem erasure: a subject out of every tier (the only role that deletes)",
            environment={
                "AGENTMEM_TABLE_NAME": storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": storage.bucket.bucket_name,
                "AGENTMEM_ERASURE_QUEUE_URL": self.queue.queue_url,
                **storage.vector_environment,  # the cached_vectors tier
                **vectors.environment,  # it calls no model: erasure embeds and extracts nothing
            },
            memory_size=1024,
            timeout=TIMEOUT,
        )
        role = self.function.role
        storage.grant_erase(role)
        storage.grant_blob_erase(role)
        # The beliefs tier marks every use of the subject stale (`erased`) before removing them.
        storage.grant_dependents_mark(role)
        # The cached_vectors tier: the subject's vectors that nobody else said go with it.
        storage.grant_vector_forget(role)
        acknowledge(
            self.function,
            "AwsSolutions-IAM5",
            "Blob keys are content hashes found in the erased subject's events; the bucket is this tenant's.",
            f"Resource::{logical_ref(storage.bucket)}/*",
        )
        vectors.grant_erase(role)
        self.queue.grant_send_messages(role)
        self.function.invocable.add_event_source(
            sources.SqsEventSource(self.queue, batch_size=1, report_batch_item_failures=True)
        )
        self.methods = api.add_routes(self.function.invocable, function_routes("erasure"))
        self.dead_letter_alarm = dead_letter_alarm(
            self,
            self.dead_letters,
            f"agentmem {config.tenant}: an erasure did not finish after {MAX_RECEIVES} attempts. "
            "GET /v1/erasures/{id} names the tier that failed; DELETE the subject again once it is fixed.",
        )
