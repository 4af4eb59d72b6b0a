"""Replay on AWS: a Step Functions state machine rebuilds the semantic tier from the log into a new
generation, beside the live one, with the projector's own code in a worker function.

Input: `{"mode": "replay" | "shadow", "generation": null | N, "settings": {NAME: VALUE}}` (what
`agentmem replay --backend aws` sends). `settings` are the shadow's models and schema.

1. Prepare: the worker creates the next generation (or checks the one named: a resume, or a
   shadow's promotion) and seeds its health probe.
2. A pass, three times over for a replay and once for a shadow:
   ExportTableToPointInTime of the log table (PITR, which storage.py enables) to this construct's
   bucket; DescribeExport every minute until it is COMPLETED; then a Distributed Map over the
   export's `manifest-files.json` (JSON lines, one data file each) whose child workflow invokes
   the worker on the file, slice after slice, until the worker answers `done`.
3. Shadow: it ends there; readers switch only when `agentmem replay --backend aws --promote N`
   starts a replay of N (which catches it up with the shadow's settings, then switches).
   Replay: the Build pass, a CatchUp pass (a fresh export: what was logged during the build),
   Activate (the alias switch), then a Final pass for what was logged during the catch-up and was
   projected into the old generation by the live projector. The switch is the last state that
   changes what readers see; the Final pass only adds to the generation they now read.

Why an export and not a parallel Scan: an export reads no table capacity and is consistent at one
point in time, and its data files are what a Distributed Map is made to fan out over; segments of
a Scan would be capacity the live write path competes with, paged by the worker itself.

Idempotent and resumable: the worker skips events the generation already holds (their passages
are there) before it extracts anything, and the belief seq rule makes a re-applied event a no-op.
No state catches a failure: a failed execution stops at the failed state, and
`aws stepfunctions redrive-execution` resumes it there; a Map Run redriven re-runs only the files
that did not succeed. A new execution with `--generation N` re-exports and skips what is done.

A tenant with a retention is refused at Prepare: the beliefs of expired events live on only in the
live generation's observations, and seeding a new generation from them is not built on AWS.
"""

from __future__ import annotations

import json

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.bedrock import BedrockModels
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.replay_access import grant_operator
from infra.constructs.replay_definition import EXPORT_PREFIX, PASSES, ReplayDefinition
from infra.constructs.storage import Storage, private_bucket
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge, arn_head, logical_ref
from infra.paths import FUNCTIONS_DIR

# Exports hold every event of the log; a week is enough to redrive a failed run. An erased subject's
# events in an older export are skipped by the worker (it reads the tombstones), and expire here.
EXPORT_RETENTION = cdk.Duration.days(7)
WORKER_TIMEOUT = cdk.Duration.minutes(15)  # the worker stops reading RESERVE_MS before this
EXECUTION_TIMEOUT = cdk.Duration.days(7)
ALARM_PERIOD = cdk.Duration.minutes(5)


class Replay(Construct):
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
        dead_letters: cdk.aws_sqs.IQueue,
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self._storage = storage
        removal = cdk.RemovalPolicy.RETAIN if config.retain else cdk.RemovalPolicy.DESTROY
        self.bucket = self._build_bucket(removal)
        self.worker = self._build_worker(layers, vectors, models)
        definition = ReplayDefinition(
            self, worker=self.worker.function, table=storage.table, bucket=self.bucket
        )
        self.log_group = logs.LogGroup(
            self, "Logs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal
        )
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            comment=f"agentmem {config.tenant}: replay the log into a new belief generation",
            definition_body=sfn.DefinitionBody.from_chainable(definition.chain()),
            state_machine_type=sfn.StateMachineType.STANDARD,  # a Distributed Map and hours of work
            timeout=EXECUTION_TIMEOUT,
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=False
            ),
        )
        self.failure_alarm = cloudwatch.Alarm(
            self,
            "FailedAlarm",
            alarm_description=f"agentmem {config.tenant}: a replay execution failed, timed out or was "
            "stopped. Readers stay on the generation they had; `aws stepfunctions redrive-execution` "
            "resumes it where it stopped (docs/deploy.md, Replay).",
            metric=cloudwatch.MathExpression(
                expression="failed + timedOut + aborted",
                using_metrics={
                    "failed": self.state_machine.metric_failed(period=ALARM_PERIOD),
                    "timedOut": self.state_machine.metric_timed_out(period=ALARM_PERIOD),
                    "aborted": self.state_machine.metric_aborted(period=ALARM_PERIOD),
                },
                period=ALARM_PERIOD,
            ),
            threshold=0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        self._grant_export(self.state_machine.role)
        self._acknowledge_state_machine()
        self.operator = grant_operator(
            self, config=config, storage=storage, vectors=vectors, models=models,
            state_machine=self.state_machine, dead_letters=dead_letters,
        )  # fmt: skip

    # -- resources ----------------------------------------------------------------------------

    def _build_bucket(self, removal: cdk.RemovalPolicy) -> s3.Bucket:
        expire = s3.LifecycleRule(
            expiration=EXPORT_RETENTION, abort_incomplete_multipart_upload_after=cdk.Duration.days(1)
        )
        return private_bucket(
            self, "ExportBucket", config=self._config, removal=removal, lifecycle_rules=[expire],
            server_access_logs_bucket=self._storage.access_log_bucket, server_access_logs_prefix="replay/",
        )  # fmt: skip

    def _build_worker(self, layers: Layers, vectors: SearchDomain, models: BedrockModels) -> AgentmemFunction:
        worker = AgentmemFunction(
            self,
            "Worker",
            config=self._config,
            code_dir=FUNCTIONS_DIR / "replay_worker",
            layers=layers.all,
            description="agentmem replay worker: a slice of a log export -> one belief generation",
            environment={
                "AGENTMEM_TABLE_NAME": self._storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": self._storage.bucket.bucket_name,
                "AGENTMEM_REPLAY_BUCKET": self.bucket.bucket_name,
                **self._storage.vector_environment,
                **vectors.environment,
                **models.environment,
            },
            memory_size=1024,
            timeout=WORKER_TIMEOUT,
        )
        role = worker.role
        iam.Grant.add_to_principal(
            grantee=role,
            actions=["s3:GetObject"],
            resource_arns=[self.bucket.arn_for_objects(f"{EXPORT_PREFIX}/*")],
        )
        acknowledge(
            worker,
            "AwsSolutions-IAM5",
            "Export data file keys are chosen by DynamoDB at export time; the worker reads only the replay "
            "prefix of this tenant's export bucket.",
            f"Resource::{logical_ref(self.bucket)}/{EXPORT_PREFIX}/*",
        )
        vectors.grant_generation_write(role)
        models.grant_invoke(role, worker)
        for model_id in self._config.replay_models or []:
            BedrockModels(embedding_model=model_id, llm_model=model_id).grant_invoke(role, worker)
        self._storage.grant_tombstone_read(role)  # erased subjects stay out of every generation
        # A replay embeds the whole log again: every text the live projector embedded is a hit.
        self._storage.grant_vector_cache(role)
        return worker

    # -- permissions --------------------------------------------------------------------------

    def _grant_export(self, role: iam.IRole) -> None:
        """DynamoDB writes the export with the caller's permissions: the state machine's, into the prefix."""
        iam.Grant.add_to_principal(
            grantee=role,
            actions=["s3:PutObject", "s3:AbortMultipartUpload", "s3:PutObjectAcl"],
            resource_arns=[self.bucket.arn_for_objects(f"{EXPORT_PREFIX}/*")],
        )

    def _acknowledge_state_machine(self) -> None:
        bucket = logical_ref(self.bucket)
        table = logical_ref(self._storage.table)
        # CDK's policy for the Distributed Maps cuts this machine's name out of its own ARN.
        split = {"Fn::Split": [":", {"Ref": self._logical(self.state_machine)}]}
        name = json.dumps({"Fn::Select": [6, split]}, separators=(",", ":"))
        children = f"Resource::{arn_head(self, 'states')}:execution:{name}"
        acknowledge(
            self.state_machine,
            "AwsSolutions-IAM5",
            "Export, manifest and result keys are chosen by DynamoDB and Step Functions at run time, inside "
            "this tenant's export bucket; an export's ARN ends in an id DynamoDB chooses; the Distributed "
            "Maps' child executions of this one state machine and the worker's versions are named at run "
            "time; CloudWatch Logs delivery and X-Ray support no resource-level permissions.",
            f"Resource::arn:<AWS::Partition>:s3:::<{self._logical(self.bucket)}>/*",
            f"Resource::{bucket}/{EXPORT_PREFIX}/*",
            f"Resource::{table}/export/*",
            f"Resource::<{self._logical(self.worker.function)}.Arn>:*",
            f"{children}:*",
            *(f"{children}/Project{name_}:*" for name_ in PASSES),
            "Resource::*",
        )

    def _logical(self, construct: Construct) -> str:
        child = construct.node.default_child
        assert isinstance(child, cdk.CfnElement)
        return cdk.Stack.of(self).get_logical_id(child)
