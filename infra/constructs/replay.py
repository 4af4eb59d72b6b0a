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
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.bedrock import BedrockModels
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.replay_access import grant_operator
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge, arn_head, logical_ref
from infra.paths import FUNCTIONS_DIR

EXPORT_PREFIX = "replay"  # agentmem.entrypoints.replay_worker.EXPORT_PREFIX, without its slash
RESULTS_PREFIX = "results"
# Exports hold every event of the log; a week is enough to redrive a failed run. An erased subject's
# events in an older export are skipped by the worker (it reads the tombstones), and expire here.
EXPORT_RETENTION = cdk.Duration.days(7)
EXPORT_POLL = cdk.Duration.minutes(1)
# Data files projected at once, each by one worker at a time: the load on Bedrock and OpenSearch.
MAX_CONCURRENCY = 8
# A file that fails fails the Map Run: a generation missing a file's events must not go live. The
# run's other files finish or stop, and a redrive re-runs only the unsuccessful ones.
TOLERATED_FAILURE_PERCENTAGE = 0
WORKER_TIMEOUT = cdk.Duration.minutes(15)  # the worker stops reading RESERVE_MS before this
EXECUTION_TIMEOUT = cdk.Duration.days(7)
# Worker errors worth another try (agentmem.errors names them), and Lambda's own transient ones.
TRANSIENT_ERRORS = [
    "BackendUnavailableError",
    "ContentionError",
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
]
PASSES = ("Build", "CatchUp", "Final")  # the replay's; a shadow runs Build alone
EXPORT_ERRORS = ["DynamoDb.LimitExceededException", "DynamoDb.InternalServerErrorException"]


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
        self.log_group = logs.LogGroup(
            self, "Logs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal
        )
        self.state_machine = sfn.StateMachine(
            self,
            "StateMachine",
            comment=f"agentmem {config.tenant}: replay the log into a new belief generation",
            definition_body=sfn.DefinitionBody.from_chainable(self._definition()),
            state_machine_type=sfn.StateMachineType.STANDARD,  # a Distributed Map and hours of work
            timeout=EXECUTION_TIMEOUT,
            tracing_enabled=True,
            logs=sfn.LogOptions(
                destination=self.log_group, level=sfn.LogLevel.ALL, include_execution_data=False
            ),
        )
        self._grant_export(self.state_machine.role)
        self._acknowledge_state_machine()
        self.operator = grant_operator(
            self, config=config, storage=storage, vectors=vectors, models=models,
            state_machine=self.state_machine, dead_letters=dead_letters,
        )  # fmt: skip

    # -- resources ----------------------------------------------------------------------------

    def _build_bucket(self, removal: cdk.RemovalPolicy) -> s3.Bucket:
        return s3.Bucket(
            self,
            "ExportBucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self._storage.access_log_bucket,
            server_access_logs_prefix="replay/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=EXPORT_RETENTION, abort_incomplete_multipart_upload_after=cdk.Duration.days(1)
                )
            ],
            removal_policy=removal,
            auto_delete_objects=not self._config.retain,
        )

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
        return worker

    # -- the definition -----------------------------------------------------------------------

    def _invoke(
        self, state_id: str, payload: Mapping[str, object], result_path: str | None = None
    ) -> tasks.LambdaInvoke:
        task = tasks.LambdaInvoke(
            self,
            state_id,
            lambda_function=self.worker.function,
            payload=sfn.TaskInput.from_object(dict(payload)),
            payload_response_only=True,
            result_path=result_path,
            retry_on_service_exceptions=False,  # TRANSIENT_ERRORS below cover them, with a longer backoff
        )
        task.add_retry(
            errors=TRANSIENT_ERRORS, interval=cdk.Duration.seconds(5), max_attempts=6, backoff_rate=2
        )
        return task

    def _definition(self) -> sfn.IChainable:
        settings = sfn.JsonPath.object_at("$.settings")
        prepare = self._invoke(
            "Prepare",
            {"action": "prepare", "mode": sfn.JsonPath.string_at("$.mode"),
             "generation": sfn.JsonPath.object_at("$.generation"), "settings": settings},
            result_path="$.prepared",
        )  # fmt: skip
        target = sfn.Pass(
            self,
            "Target",
            parameters={
                "mode": sfn.JsonPath.string_at("$.mode"),
                "settings": settings,
                "generation": sfn.JsonPath.number_at("$.prepared.generation"),
                "live_generation": sfn.JsonPath.number_at("$.prepared.live_generation"),
            },
        )
        activate = self._invoke(
            "Activate",
            {
                "action": "activate",
                "generation": sfn.JsonPath.number_at("$.generation"),
                "settings": settings,
            },
            result_path="$.activated",
        )
        shadow_built = sfn.Succeed(
            self, "ShadowBuilt", comment="Nothing switched: promote it to make it live"
        )
        replayed = sfn.Succeed(self, "Replayed")
        build, catch_up, final = (self._pass(name) for name in PASSES)
        switch = catch_up.next(activate).next(final).next(replayed)
        return (
            prepare.next(target)
            .next(build)
            .next(
                sfn.Choice(self, "ShadowOrReplay")
                .when(sfn.Condition.string_equals("$.mode", "shadow"), shadow_built)
                .otherwise(switch)
            )
        )

    def _pass(self, name: str) -> sfn.Chain:
        """Export the table, wait for the export, project every data file into the generation."""
        folder = f"{EXPORT_PREFIX}/{{}}/{name.lower()}"
        export = tasks.CallAwsService(
            self,
            f"Export{name}",
            service="dynamodb",
            action="exportTableToPointInTime",
            iam_action="dynamodb:ExportTableToPointInTime",
            iam_resources=[self._storage.table.table_arn],
            parameters={
                "TableArn": self._storage.table.table_arn,
                "S3Bucket": self.bucket.bucket_name,
                "S3Prefix": sfn.JsonPath.format(folder, sfn.JsonPath.execution_name),
                "ExportFormat": "DYNAMODB_JSON",
                # The same token for a retried call: DynamoDB starts one export, not two.
                "ClientToken": sfn.JsonPath.hash(
                    sfn.JsonPath.format(folder, sfn.JsonPath.execution_name), "MD5"
                ),
            },
            result_selector={"arn": sfn.JsonPath.string_at("$.ExportDescription.ExportArn")},
            result_path="$.export",
        )
        export.add_retry(
            errors=EXPORT_ERRORS, interval=cdk.Duration.seconds(30), max_attempts=5, backoff_rate=2
        )
        wait = sfn.Wait(self, f"Wait{name}", time=sfn.WaitTime.duration(EXPORT_POLL))
        describe = tasks.CallAwsService(
            self,
            f"Describe{name}",
            service="dynamodb",
            action="describeExport",
            iam_action="dynamodb:DescribeExport",
            iam_resources=[f"{self._storage.table.table_arn}/export/*"],
            parameters={"ExportArn": sfn.JsonPath.string_at("$.export.arn")},
            result_selector={
                "arn": sfn.JsonPath.string_at("$.ExportDescription.ExportArn"),
                "status": sfn.JsonPath.string_at("$.ExportDescription.ExportStatus"),
                "prefix": sfn.JsonPath.string_at("$.ExportDescription.S3Prefix"),
                # <prefix>/AWSDynamoDB/<export id>/manifest-files.json; the id ends the export's ARN.
                "files": sfn.JsonPath.format(
                    "{}/AWSDynamoDB/{}/manifest-files.json",
                    sfn.JsonPath.string_at("$.ExportDescription.S3Prefix"),
                    sfn.JsonPath.array_get_item(
                        sfn.JsonPath.string_split(
                            sfn.JsonPath.string_at("$.ExportDescription.ExportArn"), "/"
                        ),
                        3,
                    ),
                ),
            },
            result_path="$.export",
        )
        describe.add_retry(
            errors=EXPORT_ERRORS, interval=cdk.Duration.seconds(30), max_attempts=5, backoff_rate=2
        )
        failed = sfn.Fail(
            self,
            f"Export{name}Failed",
            error="ExportFailed",
            cause="DynamoDB did not finish the export; start the replay again with --generation to resume",
        )
        projected = sfn.Pass(self, f"Projected{name}", result_path=sfn.JsonPath.DISCARD)
        done = (
            sfn.Choice(self, f"Exported{name}")
            .when(
                sfn.Condition.string_equals("$.export.status", "COMPLETED"), self._map(name).next(projected)
            )
            .when(sfn.Condition.string_equals("$.export.status", "FAILED"), failed)
            .otherwise(wait)
        )
        export.next(wait)
        wait.next(describe).next(done)
        # The pass goes on from `projected`, once the Map is done (the loop is inside).
        return sfn.Chain.custom(export, [projected], projected)

    def _map(self, name: str) -> sfn.DistributedMap:
        files = sfn.DistributedMap(
            self,
            f"Project{name}",
            label=f"Project{name}",
            item_reader=sfn.S3JsonLItemReader(
                bucket=self.bucket, key=sfn.JsonPath.string_at("$.export.files")
            ),
            item_selector={
                "action": "project",
                "generation": sfn.JsonPath.number_at("$.generation"),
                "settings": sfn.JsonPath.object_at("$.settings"),
                "prefix": sfn.JsonPath.string_at("$.export.prefix"),
                "file": sfn.JsonPath.string_at("$$.Map.Item.Value.dataFileS3Key"),
                "start": 0,
            },
            max_concurrency=MAX_CONCURRENCY,
            tolerated_failure_percentage=TOLERATED_FAILURE_PERCENTAGE,
            map_execution_type=sfn.StateMachineType.STANDARD,  # a large file loops for longer than 5 min
            result_writer_v2=sfn.ResultWriterV2(
                bucket=self.bucket, prefix=f"{RESULTS_PREFIX}/{name.lower()}"
            ),
            result_path=sfn.JsonPath.DISCARD,
        )
        step = {
            "action": "project",
            "generation": sfn.JsonPath.number_at("$.generation"),
            "settings": sfn.JsonPath.object_at("$.settings"),
            "prefix": sfn.JsonPath.string_at("$.prefix"),
            "file": sfn.JsonPath.string_at("$.file"),
            "start": sfn.JsonPath.number_at("$.start"),
        }
        slice_ = self._invoke(f"Slice{name}", step)
        file_done = sfn.Succeed(self, f"File{name}Done")
        slice_.next(
            sfn.Choice(self, f"More{name}")
            .when(sfn.Condition.boolean_equals("$.done", True), file_done)
            .otherwise(slice_)
        )
        files.item_processor(slice_)
        return files

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
