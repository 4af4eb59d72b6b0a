"""The semantic tier's resources: the stream projector, its dead-letter queue, the vector collection and
its three policies, the read function, and what each function may do."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from aws_cdk.assertions import Match

from infra.constructs.bedrock import split_profile
from infra.constructs.vectors import collection_name
from tests.infra.conftest import Synth, only

# Shares the session-scoped `acme` synth with test_stack.py (see the note there).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

LLM_PROFILE = "us.anthropic.claude-haiku-4-5-20251001-v1:0"


def _function(synth: Synth, description: str) -> tuple[str, dict[str, Any]]:
    return only(
        synth.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(description)})
    )


def _statements(synth: Synth, function_props: dict[str, Any]) -> list[dict[str, Any]]:
    role_id = function_props["Role"]["Fn::GetAtt"][0]
    _, policy = only(
        synth.resources("AWS::IAM::Policy", {"Roles": [{"Ref": role_id}]}),
    )
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def _actions(statements: list[dict[str, Any]]) -> set[str]:
    return {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}


def _render(value: Any) -> str:
    """An Fn::Join of strings and GetAtts as text, each GetAtt written `<LogicalId.Attribute>`."""
    if isinstance(value, str):
        return value
    if "Fn::GetAtt" in value:
        return "<{}.{}>".format(*value["Fn::GetAtt"])
    if "Ref" in value:
        return "<{}>".format(value["Ref"])
    separator, parts = value["Fn::Join"]
    return str(separator).join(_render(part) for part in parts)


@pytest.fixture(scope="module")
def projector(acme: Synth) -> dict[str, Any]:
    props: dict[str, Any] = _function(acme, "projector")[1]["Properties"]
    return props


@pytest.fixture(scope="module")
def reader(acme: Synth) -> dict[str, Any]:
    props: dict[str, Any] = _function(acme, "read path")[1]["Properties"]
    return props


# --- stream -> projector ------------------------------------------------------------------------------


def test_stream_mapping_never_lets_a_poison_record_block_the_shard(acme: Synth) -> None:
    table_id, _ = only(acme.resources("AWS::DynamoDB::Table"))
    queue_id, _ = only(acme.resources("AWS::SQS::Queue"))
    function_id, _ = _function(acme, "projector")
    _, mapping = only(acme.resources("AWS::Lambda::EventSourceMapping"))
    props = mapping["Properties"]
    assert props["EventSourceArn"] == {"Fn::GetAtt": [table_id, "StreamArn"]}
    assert props["FunctionName"] == {"Ref": function_id}
    assert props["StartingPosition"] == "TRIM_HORIZON"
    assert props["BatchSize"] == 25
    assert props["BisectBatchOnFunctionError"] is True
    assert props["MaximumRetryAttempts"] == 5
    assert props["MaximumRecordAgeInSeconds"] == 6 * 3600
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["DestinationConfig"] == {"OnFailure": {"Destination": {"Fn::GetAtt": [queue_id, "Arn"]}}}
    # One ordered stream per shard: a parallelization factor above 1 could reorder a session's events.
    assert "ParallelizationFactor" not in props


def test_only_inserted_events_invoke_the_projector(acme: Synth) -> None:
    _, mapping = only(acme.resources("AWS::Lambda::EventSourceMapping"))
    (pattern,) = mapping["Properties"]["FilterCriteria"]["Filters"]
    assert json.loads(pattern["Pattern"]) == {
        "eventName": ["INSERT"],
        "dynamodb": {"NewImage": {"entity": {"S": ["event"]}}},
    }


def test_dead_letter_queue_is_encrypted_tls_only_and_keeps_messages_14_days(acme: Synth) -> None:
    queue_id, queue = only(acme.resources("AWS::SQS::Queue"))
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    assert queue["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert queue["DeletionPolicy"] == "Retain"
    _, policy = only(acme.resources("AWS::SQS::QueuePolicy"))
    assert policy["Properties"]["Queues"] == [{"Ref": queue_id}]
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_an_alarm_fires_on_any_dead_lettered_batch(acme: Synth) -> None:
    queue_id, _ = only(acme.resources("AWS::SQS::Queue"))
    _, alarm = only(acme.resources("AWS::CloudWatch::Alarm"))
    props = alarm["Properties"]
    assert (props["Namespace"], props["MetricName"]) == ("AWS/SQS", "ApproximateNumberOfMessagesVisible")
    assert props["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue_id, "QueueName"]}}]
    assert (props["ComparisonOperator"], props["Threshold"]) == ("GreaterThanThreshold", 0)
    assert props["TreatMissingData"] == "notBreaching"


def test_projector_runtime_and_sizing(projector: dict[str, Any]) -> None:
    assert projector["Runtime"] == "python3.12"
    assert projector["Architectures"] == ["arm64"]
    assert projector["MemorySize"] == 1024
    assert projector["Timeout"] == 90
    assert projector["TracingConfig"] == {"Mode": "Active"}
    assert len(projector["Layers"]) == 2


def test_projector_environment(acme: Synth, projector: dict[str, Any]) -> None:
    table_id, _ = only(acme.resources("AWS::DynamoDB::Table"))
    bucket_id, _ = only(acme.resources("AWS::S3::Bucket", {"LoggingConfiguration": Match.any_value()}))
    collection_id, _ = only(acme.resources("AWS::OpenSearchServerless::Collection"))
    assert projector["Environment"]["Variables"] == {
        "AGENTMEM_BACKEND": "aws",
        "AGENTMEM_TENANT_ID": "acme",
        "AGENTMEM_TABLE_NAME": {"Ref": table_id},
        "AGENTMEM_BUCKET_NAME": {"Ref": bucket_id},
        "AGENTMEM_OPENSEARCH_URL": {"Fn::GetAtt": [collection_id, "CollectionEndpoint"]},
        "AGENTMEM_BEDROCK_EMBEDDING_MODEL": "amazon.titan-embed-text-v2:0",
        "AGENTMEM_BEDROCK_LLM_MODEL": LLM_PROFILE,
        "POWERTOOLS_SERVICE_NAME": "agentmem",
        "POWERTOOLS_METRICS_NAMESPACE": "agentmem",
        "POWERTOOLS_LOG_LEVEL": "INFO",
    }


def test_projector_reads_the_stream_and_nothing_else_of_the_table(
    acme: Synth, projector: dict[str, Any]
) -> None:
    table_id, _ = only(acme.resources("AWS::DynamoDB::Table"))
    statements = _statements(acme, projector)
    assert _actions(statements) == {
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
        "dynamodb:ListStreams",
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "sqs:SendMessage",
        "sqs:GetQueueAttributes",
        "sqs:GetQueueUrl",
        "aoss:APIAccessAll",
        "bedrock:InvokeModel",
    }
    stream_reads = [s for s in statements if "dynamodb:GetRecords" in s["Action"]]
    assert [s["Resource"] for s in stream_reads] == [{"Fn::GetAtt": [table_id, "StreamArn"]}]


def test_read_function_reads_the_log_and_blobs_and_writes_nothing(
    acme: Synth, reader: dict[str, Any]
) -> None:
    assert _actions(_statements(acme, reader)) == {
        "logs:CreateLogStream",
        "logs:PutLogEvents",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "s3:GetObject",
        "s3:ListBucket",
        "aoss:APIAccessAll",
        "bedrock:InvokeModel",
    }


def test_no_function_holds_a_service_wide_action(acme: Synth) -> None:
    for policy in acme.resources("AWS::IAM::Policy").values():
        for action in _actions(policy["Properties"]["PolicyDocument"]["Statement"]):
            assert not action.endswith("*"), action


def test_read_function_environment(acme: Synth, reader: dict[str, Any]) -> None:
    collection_id, _ = only(acme.resources("AWS::OpenSearchServerless::Collection"))
    variables = reader["Environment"]["Variables"]
    assert variables["AGENTMEM_OPENSEARCH_URL"] == {"Fn::GetAtt": [collection_id, "CollectionEndpoint"]}
    assert variables["AGENTMEM_BEDROCK_LLM_MODEL"] == LLM_PROFILE
    assert reader["MemorySize"] == 1024
    assert reader["Timeout"] == 29


# --- Bedrock -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["projector", "reader"])
def test_functions_may_invoke_only_the_configured_models(
    acme: Synth, which: str, request: pytest.FixtureRequest
) -> None:
    statements = [
        s for s in _statements(acme, request.getfixturevalue(which)) if s["Action"] == "bedrock:InvokeModel"
    ]
    profile = f"arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/{LLM_PROFILE}"
    any_region = "arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0"
    granted = {_render(resource) for s in statements for resource in _as_list(s["Resource"])}
    assert granted == {
        "arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/amazon.titan-embed-text-v2:0",
        profile,
        any_region,
    }
    # The profile may route to its model in any region of its geography, but only calls made through
    # this profile may use that grant.
    (conditioned,) = [s for s in statements if "Condition" in s]
    assert _render(conditioned["Resource"]) == any_region
    assert _render(conditioned["Condition"]["StringEquals"]["bedrock:InferenceProfileArn"]) == profile


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("amazon.titan-embed-text-v2:0", (None, "amazon.titan-embed-text-v2:0")),
        (LLM_PROFILE, ("us", "anthropic.claude-haiku-4-5-20251001-v1:0")),
        (
            "global.anthropic.claude-haiku-4-5-20251001-v1:0",
            ("global", "anthropic.claude-haiku-4-5-20251001-v1:0"),
        ),
        ("amazon.nova-lite-v1:0", (None, "amazon.nova-lite-v1:0")),
    ],
)
def test_inference_profiles_are_told_from_foundation_models(
    model_id: str, expected: tuple[str | None, str]
) -> None:
    assert split_profile(model_id) == expected


# --- vector collection ------------------------------------------------------------------------------------


def test_collection_is_a_vector_search_collection_named_after_the_tenant(acme: Synth) -> None:
    encryption_id, _ = only(
        acme.resources("AWS::OpenSearchServerless::SecurityPolicy", {"Type": "encryption"})
    )
    network_id, _ = only(acme.resources("AWS::OpenSearchServerless::SecurityPolicy", {"Type": "network"}))
    _, collection = only(acme.resources("AWS::OpenSearchServerless::Collection"))
    assert collection["Properties"]["Type"] == "VECTORSEARCH"
    assert collection["Properties"]["Name"] == "am-acme"
    assert collection["Properties"]["StandbyReplicas"] == "ENABLED"
    assert collection["DeletionPolicy"] == "Retain"
    # A collection whose name no encryption policy covers fails to create.
    assert set(collection["DependsOn"]) == {encryption_id, network_id}


def test_collection_is_encrypted_with_an_aws_owned_key(acme: Synth) -> None:
    _, policy = only(acme.resources("AWS::OpenSearchServerless::SecurityPolicy", {"Type": "encryption"}))
    assert policy["Properties"]["Name"] == "am-acme"
    assert json.loads(policy["Properties"]["Policy"]) == {
        "Rules": [{"ResourceType": "collection", "Resource": ["collection/am-acme"]}],
        "AWSOwnedKey": True,
    }


def test_network_policy_opens_the_collection_endpoint_but_not_dashboards(acme: Synth) -> None:
    _, policy = only(acme.resources("AWS::OpenSearchServerless::SecurityPolicy", {"Type": "network"}))
    assert json.loads(policy["Properties"]["Policy"]) == [
        {
            "Rules": [{"ResourceType": "collection", "Resource": ["collection/am-acme"]}],
            "AllowFromPublic": True,
        }
    ]


def test_data_access_policy_names_only_the_projector_and_the_read_function(
    acme: Synth, projector: dict[str, Any], reader: dict[str, Any]
) -> None:
    _, policy = only(acme.resources("AWS::OpenSearchServerless::AccessPolicy"))
    assert (policy["Properties"]["Type"], policy["Properties"]["Name"]) == ("data", "am-acme")
    rules = json.loads(_render(policy["Properties"]["Policy"]))
    by_principal = {
        principal: {
            rule["ResourceType"]: (rule["Resource"], set(rule["Permission"])) for rule in entry["Rules"]
        }
        for entry in rules
        for principal in entry["Principal"]
    }
    writer = "<{}.Arn>".format(projector["Role"]["Fn::GetAtt"][0])
    read_only = "<{}.Arn>".format(reader["Role"]["Fn::GetAtt"][0])
    assert by_principal == {
        writer: {
            "index": (
                ["index/am-acme/*"],
                {
                    "aoss:DescribeIndex",
                    "aoss:ReadDocument",
                    "aoss:CreateIndex",
                    "aoss:UpdateIndex",
                    "aoss:WriteDocument",
                },
            ),
            "collection": (
                ["collection/am-acme"],
                {"aoss:DescribeCollectionItems", "aoss:CreateCollectionItems", "aoss:UpdateCollectionItems"},
            ),
        },
        read_only: {
            "index": (["index/am-acme/*"], {"aoss:DescribeIndex", "aoss:ReadDocument"}),
            "collection": (["collection/am-acme"], {"aoss:DescribeCollectionItems"}),
        },
    }


def test_both_functions_pass_iam_for_this_collection_only(
    acme: Synth, projector: dict[str, Any], reader: dict[str, Any]
) -> None:
    collection_id, _ = only(acme.resources("AWS::OpenSearchServerless::Collection"))
    for function in (projector, reader):
        (statement,) = [s for s in _statements(acme, function) if s["Action"] == "aoss:APIAccessAll"]
        assert statement["Resource"] == {"Fn::GetAtt": [collection_id, "Arn"]}


@pytest.mark.parametrize(
    "tenant",
    ["acme", "a", "x" * 29, "x" * 30, "a" * 32, "-leading-hyphen", "0-digit-first-and-long-tenant-id"],
)
def test_collection_names_fit_opensearch_serverless_rules(tenant: str) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9-]{2,31}", collection_name(tenant))


def test_long_tenant_ids_sharing_a_prefix_get_distinct_collections() -> None:
    first, second = collection_name("a" * 31 + "b"), collection_name("a" * 31 + "c")
    assert first != second
    assert len(first) == len(second) == 32
    assert collection_name("x" * 29) == "am-" + "x" * 29  # fits: kept as is
