"""The replay state machine (infra/constructs/replay.py) as synthesized: its states and their order,
the Distributed Maps' configuration, retries, and the IAM of the state machine, the worker and the
operator role. Nothing here runs the state machine: there is no AWS account here, and the worker's
own behaviour is pinned on moto in tests/functional/test_aws_replay_worker.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, log_table, only

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

TOKEN = "<token>"
PASSES = ("Build", "CatchUp", "Final")


def _render(value: Any) -> str:
    """A definition part: text as is, a CloudFormation token as `<LogicalId>` (or TOKEN)."""
    if isinstance(value, str):
        return value
    if "Fn::GetAtt" in value:
        return f"<{value['Fn::GetAtt'][0]}>"
    if "Ref" in value:
        return f"<{value['Ref']}>"
    return TOKEN


@pytest.fixture(scope="module")
def machine(acme: Synth) -> dict[str, Any]:
    _, resource = only(acme.resources("AWS::StepFunctions::StateMachine"))
    return dict(resource["Properties"])


@pytest.fixture(scope="module")
def definition(machine: dict[str, Any]) -> dict[str, Any]:
    joined = machine["DefinitionString"]["Fn::Join"][1]
    parsed: dict[str, Any] = json.loads("".join(_render(part) for part in joined))
    return parsed


def _states(definition: dict[str, Any]) -> dict[str, Any]:
    states: dict[str, Any] = definition["States"]
    return states


def _main_path(states: dict[str, Any]) -> list[str]:
    """Prepare to the end, taking each export's COMPLETED branch and the replay branch of the mode."""
    path, name = [], "Prepare"
    while True:
        path.append(name)
        state = states[name]
        if state["Type"] in ("Succeed", "Fail"):
            return path
        if state["Type"] == "Choice":
            completed = [c for c in state["Choices"] if c.get("StringEquals") == "COMPLETED"]
            name = completed[0]["Next"] if completed else state["Default"]
        else:
            name = state["Next"]


def _tasks(states: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, state in states.items():
        if state["Type"] == "Task":
            yield name, state
        if state["Type"] == "Map":
            yield from _tasks(state["ItemProcessor"]["States"])


def test_the_log_table_keeps_point_in_time_recovery_which_an_export_needs(acme: Synth) -> None:
    _, table = log_table(acme)
    assert table["Properties"]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_a_replay_builds_catches_up_switches_then_adds_what_came_during_the_switch(
    definition: dict[str, Any],
) -> None:
    states = _states(definition)
    path = _main_path(states)
    passes = [[f"{kind}{name}" for kind in ("Export", "Wait", "Describe", "Exported", "Project", "Projected")]
              for name in PASSES]  # fmt: skip
    assert path == [
        "Prepare", "Target", *passes[0], "ShadowOrReplay", *passes[1], "Activate", *passes[2], "Replayed",
    ]  # fmt: skip
    # The switch is the only state that moves an alias, and it comes after two full passes.
    assert [name for name in path if "activate" in json.dumps(states[name].get("Parameters", {}))] == [
        "Activate"
    ]


def test_a_shadow_build_ends_after_its_one_pass_and_switches_nothing(definition: dict[str, Any]) -> None:
    states = _states(definition)
    (shadow,) = states["ShadowOrReplay"]["Choices"]
    assert shadow == {"Variable": "$.mode", "StringEquals": "shadow", "Next": "ShadowBuilt"}
    assert states["ShadowBuilt"]["Type"] == "Succeed"


def test_each_pass_exports_the_table_at_a_point_in_time_and_waits_for_the_export(
    definition: dict[str, Any],
) -> None:
    states = _states(definition)
    for name in PASSES:
        export = states[f"Export{name}"]
        assert export["Resource"].endswith(":states:::aws-sdk:dynamodb:exportTableToPointInTime")
        params = export["Parameters"]
        assert params["TableArn"] == "<StorageLogTableFFDADFCB>"
        assert params["ExportFormat"] == "DYNAMODB_JSON"
        assert params["S3Prefix.$"] == f"States.Format('replay/{{}}/{name.lower()}', $$.Execution.Name)"
        # One token per execution and pass: a retried call does not start a second export.
        assert params["ClientToken.$"].startswith("States.Hash(States.Format(")
        assert states[f"Wait{name}"] == {"Type": "Wait", "Seconds": 60, "Next": f"Describe{name}"}
        describe = states[f"Describe{name}"]
        assert describe["Resource"].endswith(":states:::aws-sdk:dynamodb:describeExport")
        assert describe["ResultSelector"]["files.$"] == (
            "States.Format('{}/AWSDynamoDB/{}/manifest-files.json', $.ExportDescription.S3Prefix, "
            "States.ArrayGetItem(States.StringSplit($.ExportDescription.ExportArn, '/'), 3))"
        )
        choices = {c["StringEquals"]: c["Next"] for c in states[f"Exported{name}"]["Choices"]}
        assert choices == {"COMPLETED": f"Project{name}", "FAILED": f"Export{name}Failed"}
        assert states[f"Exported{name}"]["Default"] == f"Wait{name}"


def test_each_pass_fans_the_export_files_out_over_a_bounded_distributed_map(
    definition: dict[str, Any],
) -> None:
    states = _states(definition)
    for name in PASSES:
        files = states[f"Project{name}"]
        assert files["ItemProcessor"]["ProcessorConfig"] == {
            "Mode": "DISTRIBUTED",
            "ExecutionType": "STANDARD",
        }
        assert files["ItemReader"] == {
            "Resource": "arn:<AWS::Partition>:states:::s3:getObject",
            "ReaderConfig": {"InputType": "JSONL"},  # manifest-files.json: one data file per line
            "Parameters": {"Bucket": "<ReplayExportBucketAB09C74A>", "Key.$": "$.export.files"},
        }
        assert files["MaxConcurrency"] == 8
        # No tolerated failures: a generation missing a file's events must not go live.
        assert "ToleratedFailurePercentage" not in files and "ToleratedFailureCount" not in files
        assert files["ItemSelector"] == {
            "action": "project", "generation.$": "$.generation", "settings.$": "$.settings",
            "prefix.$": "$.export.prefix", "file.$": "$$.Map.Item.Value.dataFileS3Key", "start": 0,
        }  # fmt: skip
        assert files["ResultWriter"]["Parameters"]["Prefix"] == f"results/{name.lower()}"
        assert files["ResultPath"] is None


def test_a_file_is_projected_slice_after_slice_until_the_worker_says_done(definition: dict[str, Any]) -> None:
    for name in PASSES:
        child = _states(definition)[f"Project{name}"]["ItemProcessor"]
        assert child["StartAt"] == f"Slice{name}"
        states = child["States"]
        assert states[f"Slice{name}"]["Parameters"]["start.$"] == "$.start"
        assert states[f"More{name}"]["Choices"] == [
            {"Variable": "$.done", "BooleanEquals": True, "Next": f"File{name}Done"}
        ]
        assert states[f"More{name}"]["Default"] == f"Slice{name}"  # the worker's answer is the next input


def test_every_task_retries_transient_faults_and_no_state_catches_a_failure(
    definition: dict[str, Any],
) -> None:
    tasks = dict(_tasks(_states(definition)))
    assert len(tasks) == 2 + 3 * 3  # prepare, activate; per pass: export, describe, slice
    for name, task in tasks.items():
        (retry,) = task["Retry"]
        assert retry["MaxAttempts"] >= 5 and retry["BackoffRate"] == 2, name
        # A caught failure could not be redriven from where it happened.
        assert "Catch" not in task, name
    worker_retry = tasks["SliceBuild"]["Retry"][0]["ErrorEquals"]
    assert {"BackendUnavailableError", "ContentionError", "Lambda.TooManyRequestsException"} <= set(
        worker_retry
    )
    assert "InvalidInputError" not in worker_retry  # bad input fails the same way every time


def test_the_state_machine_logs_every_event_and_is_traced(machine: dict[str, Any]) -> None:
    assert machine["StateMachineType"] == "STANDARD"
    assert machine["LoggingConfiguration"]["Level"] == "ALL"
    assert machine["LoggingConfiguration"]["IncludeExecutionData"] is False
    assert machine["TracingConfiguration"] == {"Enabled": True}


def test_exports_expire_within_a_week_in_a_private_bucket_over_tls(acme: Synth) -> None:
    bucket_id, bucket = only(
        acme.resources("AWS::S3::Bucket", {"LoggingConfiguration": {"LogFilePrefix": "replay/"}})
    )
    props = bucket["Properties"]
    assert props["LifecycleConfiguration"]["Rules"] == [
        {
            "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1},
            "ExpirationInDays": 7,
            "Status": "Enabled",
        }
    ]
    blocked = ("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets")
    assert props["PublicAccessBlockConfiguration"] == dict.fromkeys(blocked, True)
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    ]
    _, policy = only(acme.resources("AWS::S3::BucketPolicy", {"Bucket": {"Ref": bucket_id}}))
    (deny,) = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def _policy(acme: Synth, role_prefix: str) -> list[dict[str, Any]]:
    statements = []
    for policy in acme.resources("AWS::IAM::Policy").values():
        roles = [r["Ref"] for r in policy["Properties"].get("Roles", [])]
        if any(r.startswith(role_prefix) for r in roles):
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    assert statements, role_prefix
    return statements


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def _grants(statements: list[dict[str, Any]]) -> dict[str, str]:
    """action -> its resource, as JSON (for lookups and substring checks)."""
    return {action: json.dumps(s["Resource"]) for s in statements for action in _actions(s)}


def test_the_state_machine_exports_this_table_into_the_replay_prefix_and_invokes_only_the_worker(
    acme: Synth,
) -> None:
    grants = _grants(_policy(acme, "ReplayStateMachineRole"))
    assert grants["dynamodb:ExportTableToPointInTime"] == '{"Fn::GetAtt": ["StorageLogTableFFDADFCB", "Arn"]}'
    assert "/export/*" in grants["dynamodb:DescribeExport"]
    assert "ReplayWorkerFunction" in grants["lambda:InvokeFunction"]
    assert "s3:PutObjectAcl" in grants and "/replay/*" in grants["s3:PutObjectAcl"]
    everything = {a for a in grants if a.startswith("dynamodb:")}
    assert everything == {
        "dynamodb:ExportTableToPointInTime",
        "dynamodb:DescribeExport",
    }  # no Scan, no writes


def test_the_worker_reads_only_exports_and_tombstones_and_writes_no_log_or_bucket(acme: Synth) -> None:
    # Its vector cache grant (test_vector_cache.py) is on the cache's own table, never the log's.
    statements = [
        s for s in _policy(acme, "ReplayWorkerRole") if "StorageVectorTable" not in str(s["Resource"])
    ]
    grants = _grants(statements)
    assert json.loads(grants["s3:GetObject"])["Fn::Join"][1][1] == "/replay/*"
    assert not {a for a in grants if a.startswith("s3:") and a != "s3:GetObject"}
    (tombstones,) = [s for s in statements if "dynamodb:BatchGetItem" in _actions(s)]
    assert tombstones["Condition"] == {
        "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#acme#ERASED#*"]}
    }
    assert {a for a in grants if a.startswith("dynamodb:")} == {"dynamodb:BatchGetItem"}


def test_the_operator_role_is_for_this_account_and_cannot_write_the_log(acme: Synth) -> None:
    _, role = only(acme.resources("AWS::IAM::Role", {"Description": Match.string_like_regexp("operator")}))
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"]["AWS"]["Fn::Join"][1][-1] == ":root"
    # Its vector cache grant (test_vector_cache.py) is on the cache's own table, never the log's.
    grants = _grants(
        [s for s in _policy(acme, "ReplayOperatorRole") if "StorageVectorTable" not in str(s["Resource"])]
    )
    assert {"states:StartExecution", "states:DescribeExecution", "states:DescribeMapRun",
            "states:RedriveExecution", "cloudformation:DescribeStacks"} <= set(grants)  # fmt: skip
    assert grants["states:StartExecution"] == '{"Ref": "ReplayStateMachine47B38F6F"}'
    writes = {"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}
    assert not writes & set(grants)
    # Its one table write: catch-up and redrive mark the dependents of the beliefs they move.
    (marks,) = [s for s in _policy(acme, "ReplayOperatorRole") if "dynamodb:UpdateItem" in _actions(s)]
    assert _actions(marks) == {"dynamodb:UpdateItem"}
    assert marks["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#acme#DEP#*"]}}
    assert not {a for a in grants if a.startswith("s3:")}
    assert {"sqs:ReceiveMessage", "sqs:DeleteMessage", "dynamodb:GetRecords"} <= set(grants)


def test_a_tenant_may_name_more_models_for_the_replay_worker_alone(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from tests.infra.conftest import synthesize

    synth = synthesize(tmp_path_factory.mktemp("cdk-replay-models"), replayModels="cohere.embed-v4:0")
    granted = {
        role: json.dumps(
            [s["Resource"] for s in _policy(synth, role) if "bedrock:InvokeModel" in _actions(s)]
        )
        for role in ("ReplayWorkerRole", "ProjectorFunctionRole", "ReplayOperatorRole")
    }
    assert "foundation-model/cohere.embed-v4:0" in granted["ReplayWorkerRole"]
    assert "cohere" not in granted["ProjectorFunctionRole"]
    assert "cohere" not in granted["ReplayOperatorRole"]


def test_a_failed_timed_out_or_stopped_replay_notifies_the_alarm_topic(acme: Synth) -> None:
    _, alarm = only(
        acme.resources("AWS::CloudWatch::Alarm", {"AlarmDescription": Match.string_like_regexp("replay")})
    )
    props = alarm["Properties"]
    (expression,) = [m for m in props["Metrics"] if "Expression" in m]
    assert expression["Expression"] == "failed + timedOut + aborted"
    names = {m["MetricStat"]["Metric"]["MetricName"] for m in props["Metrics"] if "MetricStat" in m}
    assert names == {"ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted"}
    assert (props["Threshold"], props["ComparisonOperator"]) == (0, "GreaterThanThreshold")
    topic = {"Ref": next(iter(acme.resources("AWS::SNS::Topic")))}
    assert props["AlarmActions"] == [topic] and props["OKActions"] == [topic]
