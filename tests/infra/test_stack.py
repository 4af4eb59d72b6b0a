"""The default tenant stack (`cdk synth -c tenant=acme`): what the adapters and security review rely on."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Annotations, Match

from tests.infra.conftest import Synth, acknowledged_ids, log_table, only

# One xdist worker for every synth test, and one `acme` synth (session fixture in conftest): starting
# aws-cdk-lib under jsii costs ~6 s per process, while another synth in a warm process costs ~2 s.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

# Each acknowledgment is deliberate: a new finding must fail here, and so must a stale acknowledgment.
EXPECTED_ACKNOWLEDGED = {
    "AwsSolutions-IAM5[Resource::*]",
    "AwsSolutions-IAM5[Resource::<StorageBlobBucket01221242.Arn>/*]",
    "AwsSolutions-L1",
    "AwsSolutions-APIG2",
    "AwsSolutions-APIG3",
    "AwsSolutions-COG4",
    "AwsSolutions-SQS3",
    # The vector cache's table keeps no point-in-time backup: it is rebuilt by embedding, and a backup
    # would keep erased subjects' vectors restorable.
    "AwsSolutions-DDB3",
    # The OpenSearch Service domain: no VPC, no IP allowlist (IAM principals instead), no dedicated masters.
    "AwsSolutions-OS1",
    "AwsSolutions-OS3",
    "AwsSolutions-OS4",
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0]",
    # The replay (infra/constructs/replay.py): export keys and ids, child executions and Map Runs are
    # named at run time, inside this tenant's export bucket and of this one state machine.
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::<ReplayExportBucketAB09C74A>/*]",
    "AwsSolutions-IAM5[Resource::<ReplayExportBucketAB09C74A.Arn>/replay/*]",
    "AwsSolutions-IAM5[Resource::<StorageLogTableFFDADFCB.Arn>/export/*]",
    "AwsSolutions-IAM5[Resource::<ReplayWorkerFunctionBF6D3A9B.Arn>:*]",
    *(
        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:"
        '{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"ReplayStateMachine47B38F6F"}]}]}' + f"{child}:*]"
        for child in ("", "/ProjectBuild", "/ProjectCatchUp", "/ProjectFinal")
    ),
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:"
    "<ReplayStateMachine47B38F6F.Name>:*]",
    "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:mapRun:"
    "<ReplayStateMachine47B38F6F.Name>/*]",
}


@pytest.fixture(scope="module")
def write_function(acme: Synth) -> dict[str, Any]:
    _, function = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("write path")})
    )
    props: dict[str, Any] = function["Properties"]
    return props


def test_stack_is_named_after_the_tenant(acme: Synth) -> None:
    assert acme.stack.stack_name == "agentmem-acme"


# --- cdk-nag ---------------------------------------------------------------------------------------


def test_cdk_nag_ran_and_reports_no_unacknowledged_finding(acme: Synth) -> None:
    (report,) = acme.validation_report["pluginReports"]
    assert report["pluginName"] == "AwsSolutions"
    assert report["conclusion"] == "success"
    assert report["violations"] == []


def test_every_acknowledged_nag_finding_is_expected_and_has_a_reason(acme: Synth) -> None:
    (report,) = acme.validation_report["pluginReports"]
    suppressed = report["suppressedViolations"]
    assert {finding["ruleName"] for finding in suppressed} == EXPECTED_ACKNOWLEDGED
    assert all(len(finding["reason"]) > 20 for finding in suppressed)


def test_every_acknowledgment_still_suppresses_a_finding(acme: Synth) -> None:
    (report,) = acme.validation_report["pluginReports"]
    used = {finding["acknowledgedId"] for finding in report["suppressedViolations"]}
    assert acknowledged_ids(acme) == used


def test_no_construct_reports_an_error_or_warning(acme: Synth) -> None:
    annotations = Annotations.from_stack(acme.stack)
    assert annotations.find_error("*", Match.string_like_regexp("AwsSolutions-.*")) == []
    assert annotations.find_error("*", Match.any_value()) == []
    assert annotations.find_warning("*", Match.any_value()) == []


# --- log table ----------------------------------------------------------------------------------------


def test_log_table_has_the_key_schema_the_adapters_use(acme: Synth) -> None:
    _, table = log_table(acme)
    props = table["Properties"]
    assert props["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert props["AttributeDefinitions"] == [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ]


def test_log_table_is_on_demand_recoverable_streamed_and_encrypted(acme: Synth) -> None:
    _, table = log_table(acme)
    props = table["Properties"]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["StreamSpecification"] == {"StreamViewType": "NEW_IMAGE"}
    assert props["SSESpecification"] == {"SSEEnabled": True}
    # Conversation memory expires; the adapters write `expires_at` on nothing else.
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}


def test_log_table_is_retained_and_deletion_protected_by_default(acme: Synth) -> None:
    _, table = log_table(acme)
    assert table["DeletionPolicy"] == "Retain"
    assert table["UpdateReplacePolicy"] == "Retain"
    assert table["Properties"]["DeletionProtectionEnabled"] is True


def test_resources_are_tagged_with_app_and_tenant(acme: Synth) -> None:
    _, table = log_table(acme)
    assert {"Key": "app", "Value": "agentmem"} in table["Properties"]["Tags"]
    assert {"Key": "tenant", "Value": "acme"} in table["Properties"]["Tags"]


# --- blob bucket ------------------------------------------------------------------------------------------


def _blob_bucket(acme: Synth) -> tuple[str, dict[str, Any]]:
    return only(acme.resources("AWS::S3::Bucket", {"VersioningConfiguration": Match.any_value()}))


def test_blob_bucket_blocks_public_access_and_encrypts(acme: Synth) -> None:
    _, bucket = _blob_bucket(acme)
    props = bucket["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert props["BucketEncryption"] == {
        "ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
    }
    assert bucket["DeletionPolicy"] == "Retain"


def test_blob_bucket_is_versioned_and_noncurrent_versions_expire(acme: Synth) -> None:
    # Content addressing does not protect the bytes the log points at from a human delete: versioning does.
    _, bucket = only(acme.resources("AWS::S3::Bucket", {"VersioningConfiguration": Match.any_value()}))
    assert bucket["Properties"]["VersioningConfiguration"] == {"Status": "Enabled"}
    assert bucket["Properties"]["LifecycleConfiguration"]["Rules"][0] == {
        "Id": "NoncurrentVersions",
        "NoncurrentVersionExpiration": {"NoncurrentDays": 30},
        "ExpiredObjectDeleteMarker": True,
        "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1},
        "Status": "Enabled",
    }


def test_blob_bucket_policy_denies_requests_without_tls(acme: Synth) -> None:
    bucket_id, _ = _blob_bucket(acme)
    _, policy = only(acme.resources("AWS::S3::BucketPolicy", {"Bucket": {"Ref": bucket_id}}))
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert {
        "Effect": "Deny",
        "Action": "s3:*",
        "Principal": {"AWS": "*"},
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }.items() <= next(s for s in statements if s["Effect"] == "Deny").items()


def test_blob_bucket_sends_access_logs_to_the_log_bucket(acme: Synth) -> None:
    _, bucket = _blob_bucket(acme)
    target = bucket["Properties"]["LoggingConfiguration"]["DestinationBucketName"]["Ref"]
    assert acme.template.to_json()["Resources"][target]["Type"] == "AWS::S3::Bucket"


# --- layers and write function ------------------------------------------------------------------------


def test_write_function_runtime_and_sizing(write_function: dict[str, Any]) -> None:
    assert write_function["Runtime"] == "python3.12"
    assert write_function["Architectures"] == ["arm64"]
    assert write_function["Handler"] == "handler.handler"
    assert write_function["MemorySize"] == 512
    assert write_function["Timeout"] == 10
    assert write_function["TracingConfig"] == {"Mode": "Active"}


def test_write_function_environment(acme: Synth, write_function: dict[str, Any]) -> None:
    table_id, _ = log_table(acme)
    bucket_id, _ = _blob_bucket(acme)
    assert write_function["Environment"]["Variables"] == {
        "AGENTMEM_BACKEND": "aws",
        "AGENTMEM_TENANT_ID": "acme",
        "AGENTMEM_PROCEDURAL_ENABLED": "true",
        "AGENTMEM_TABLE_NAME": {"Ref": table_id},
        "AGENTMEM_BUCKET_NAME": {"Ref": bucket_id},
        "AGENTMEM_INLINE_MAX_BYTES": "32768",
        "POWERTOOLS_SERVICE_NAME": "agentmem",
        "POWERTOOLS_METRICS_NAMESPACE": "agentmem",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        # No X-Ray SDK on the append path (docs/deploy.md, "Cold start").
        "POWERTOOLS_TRACE_DISABLED": "true",
        "TIKTOKEN_CACHE_DIR": "/opt/tiktoken",
    }


def test_write_function_uses_the_deps_and_core_layers(acme: Synth, write_function: dict[str, Any]) -> None:
    deps_id, _ = only(
        acme.resources("AWS::Lambda::LayerVersion", {"Description": Match.string_like_regexp("third-party")})
    )
    core_id, _ = only(
        acme.resources("AWS::Lambda::LayerVersion", {"Description": Match.string_like_regexp("core")})
    )
    # CDK sorts layers by construct path (recognizeLayerVersion flag); their files are disjoint anyway.
    assert sorted(write_function["Layers"], key=str) == sorted([{"Ref": deps_id}, {"Ref": core_id}], key=str)


def test_layers_target_python312_on_arm64(acme: Synth) -> None:
    layers = acme.resources("AWS::Lambda::LayerVersion")
    assert len(layers) == 2
    for layer in layers.values():
        assert layer["Properties"]["CompatibleRuntimes"] == ["python3.12"]
        assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]


def test_core_layer_ships_the_package_without_build_leftovers(acme: Synth) -> None:
    _, core = only(
        acme.resources("AWS::Lambda::LayerVersion", {"Description": Match.string_like_regexp("core")})
    )
    asset_hash = core["Properties"]["Content"]["S3Key"].removesuffix(".zip")
    staged = acme.outdir / f"asset.{asset_hash}"
    assert (staged / "python" / "agentmem" / "__init__.py").is_file()
    leftovers = [p for p in staged.rglob("*") if p.name == "__pycache__" or p.name.endswith(".egg-info")]
    assert leftovers == []


def test_write_function_logs_to_its_own_log_group_kept_one_month(
    acme: Synth, write_function: dict[str, Any]
) -> None:
    group_id = write_function["LoggingConfig"]["LogGroup"]["Ref"]
    group = acme.template.to_json()["Resources"][group_id]
    assert group["Properties"]["RetentionInDays"] == 30


def test_write_function_policy_is_least_privilege(acme: Synth) -> None:
    _, policy = only(
        acme.resources("AWS::IAM::Policy", {"PolicyName": Match.string_like_regexp("WriteFunction")})
    )
    actions = {
        action
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        for action in _as_list(statement["Action"])
    }
    assert actions == {
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
        "dynamodb:ConditionCheckItem",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
        "s3:GetObject",
        "s3:PutObject",
        "s3:ListBucket",
    }


def _as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else value


def test_write_function_role_has_no_managed_policy(acme: Synth, write_function: dict[str, Any]) -> None:
    role = acme.template.to_json()["Resources"][write_function["Role"]["Fn::GetAtt"][0]]
    assert "ManagedPolicyArns" not in role["Properties"]
