"""The replay state machine's definition (infra/constructs/replay.py has the resources and their IAM):
Prepare, then one pass for a shadow or Build, CatchUp, Activate and Final for a replay; each pass an
export of the log table, a wait for it, and a Distributed Map over its data files."""

from __future__ import annotations

from collections.abc import Mapping

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

EXPORT_PREFIX = "replay"  # agentmem.entrypoints.replay_worker.EXPORT_PREFIX, without its slash
RESULTS_PREFIX = "results"
EXPORT_POLL = cdk.Duration.minutes(1)
# Data files projected at once, each by one worker at a time: the load on Bedrock and OpenSearch.
MAX_CONCURRENCY = 8
# A file that fails fails the Map Run: a generation missing a file's events must not go live. The
# run's other files finish or stop, and a redrive re-runs only the unsuccessful ones.
TOLERATED_FAILURE_PERCENTAGE = 0
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


class ReplayDefinition:
    """Builds the states in `scope`; `chain()` is the state machine's definition."""

    def __init__(
        self, scope: Construct, *, worker: lambda_.IFunction, table: dynamodb.ITable, bucket: s3.IBucket
    ) -> None:
        self._scope = scope
        self._worker = worker
        self._table = table
        self._bucket = bucket

    def invoke(
        self, state_id: str, payload: Mapping[str, object], result_path: str | None = None
    ) -> tasks.LambdaInvoke:
        task = tasks.LambdaInvoke(
            self._scope,
            state_id,
            lambda_function=self._worker,
            payload=sfn.TaskInput.from_object(dict(payload)),
            payload_response_only=True,
            result_path=result_path,
            retry_on_service_exceptions=False,  # TRANSIENT_ERRORS below cover them, with a longer backoff
        )
        task.add_retry(
            errors=TRANSIENT_ERRORS, interval=cdk.Duration.seconds(5), max_attempts=6, backoff_rate=2
        )
        return task

    def chain(self) -> sfn.IChainable:
        settings = sfn.JsonPath.object_at("$.settings")
        prepare = self.invoke(
            "Prepare",
            {"action": "prepare", "mode": sfn.JsonPath.string_at("$.mode"),
             "generation": sfn.JsonPath.object_at("$.generation"), "settings": settings},
            result_path="$.prepared",
        )  # fmt: skip
        target = sfn.Pass(
            self._scope,
            "Target",
            parameters={
                "mode": sfn.JsonPath.string_at("$.mode"),
                "settings": settings,
                "generation": sfn.JsonPath.number_at("$.prepared.generation"),
                "live_generation": sfn.JsonPath.number_at("$.prepared.live_generation"),
            },
        )
        activate = self.invoke(
            "Activate",
            {
                "action": "activate",
                "generation": sfn.JsonPath.number_at("$.generation"),
                "settings": settings,
            },
            result_path="$.activated",
        )
        shadow_built = sfn.Succeed(
            self._scope, "ShadowBuilt", comment="Nothing switched: promote it to make it live"
        )
        replayed = sfn.Succeed(self._scope, "Replayed")
        build, catch_up, final = (self._pass(name) for name in PASSES)
        switch = catch_up.next(activate).next(final).next(replayed)
        return (
            prepare.next(target)
            .next(build)
            .next(
                sfn.Choice(self._scope, "ShadowOrReplay")
                .when(sfn.Condition.string_equals("$.mode", "shadow"), shadow_built)
                .otherwise(switch)
            )
        )

    def _pass(self, name: str) -> sfn.Chain:
        """Export the table, wait for the export, project every data file into the generation."""
        folder = f"{EXPORT_PREFIX}/{{}}/{name.lower()}"
        export = tasks.CallAwsService(
            self._scope,
            f"Export{name}",
            service="dynamodb",
            action="exportTableToPointInTime",
            iam_action="dynamodb:ExportTableToPointInTime",
            iam_resources=[self._table.table_arn],
            parameters={
                "TableArn": self._table.table_arn,
                "S3Bucket": self._bucket.bucket_name,
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
        wait = sfn.Wait(self._scope, f"Wait{name}", time=sfn.WaitTime.duration(EXPORT_POLL))
        describe = tasks.CallAwsService(
            self._scope,
            f"Describe{name}",
            service="dynamodb",
            action="describeExport",
            iam_action="dynamodb:DescribeExport",
            iam_resources=[f"{self._table.table_arn}/export/*"],
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
            self._scope,
            f"Export{name}Failed",
            error="ExportFailed",
            cause="DynamoDB did not finish the export; start the replay again with --generation to resume",
        )
        projected = sfn.Pass(self._scope, f"Projected{name}", result_path=sfn.JsonPath.DISCARD)
        done = (
            sfn.Choice(self._scope, f"Exported{name}")
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
            self._scope,
            f"Project{name}",
            label=f"Project{name}",
            item_reader=sfn.S3JsonLItemReader(
                bucket=self._bucket, key=sfn.JsonPath.string_at("$.export.files")
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
                bucket=self._bucket, prefix=f"{RESULTS_PREFIX}/{name.lower()}"
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
        slice_ = self.invoke(f"Slice{name}", step)
        file_done = sfn.Succeed(self._scope, f"File{name}Done")
        slice_.next(
            sfn.Choice(self._scope, f"More{name}")
            .when(sfn.Condition.boolean_equals("$.done", True), file_done)
            .otherwise(slice_)
        )
        files.item_processor(slice_)
        return files
