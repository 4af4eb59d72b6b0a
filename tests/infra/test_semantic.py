"""The semantic tier's resources: the stream projector, its dead-letter queue, the OpenSearch Service domain
with its access policy and logs, the read function, and what each function may do."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from aws_cdk.assertions import Match

from infra.constructs.bedrock import split_profile
from infra.constructs.vectors import domain_name
from tests.infra.conftest import Synth, log_table, only, vector_table

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


def _endpoint_url(synth: Synth) -> dict[str, Any]:
    domain_id, _ = only(synth.resources("AWS::OpenSearchService::Domain"))
    return {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [domain_id, "DomainEndpoint"]}]]}


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


def _projectors(resources: dict[str, Any]) -> dict[str, Any]:
    """The projector's own: the erasure function has a queue, a mapping and an alarm too."""
    return {logical_id: r for logical_id, r in resources.items() if logical_id.startswith("Projector")}


def test_stream_mapping_never_lets_a_poison_record_block_the_shard(acme: Synth) -> None:
    table_id, _ = log_table(acme)
    queue_id, _ = only(_projectors(acme.resources("AWS::SQS::Queue")))
    function_id, _ = _function(acme, "projector")
    _, mapping = only(_projectors(acme.resources("AWS::Lambda::EventSourceMapping")))
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


def test_only_inserted_events_and_library_changes_invoke_the_projector(acme: Synth) -> None:
    _, mapping = only(_projectors(acme.resources("AWS::Lambda::EventSourceMapping")))
    patterns = [json.loads(f["Pattern"]) for f in mapping["Properties"]["FilterCriteria"]["Filters"]]

    def keys(pk: str, sk: str) -> dict[str, Any]:
        return {"dynamodb": {"Keys": {"pk": {"S": [{"prefix": pk}]}, "sk": {"S": [{"prefix": sk}]}}}}

    assert patterns == [
        {"eventName": ["INSERT"], "dynamodb": {"NewImage": {"entity": {"S": ["event"]}}}},
        # Catalogue assets and skill-library items: any change, matched on keys (REMOVE has no image).
        keys("CATALOGUE#", "A#"),
        keys("SKILLS#", "FN#"),
        keys("SKILLS#", "GD#"),
    ]


def test_dead_letter_queue_is_encrypted_tls_only_and_keeps_messages_14_days(acme: Synth) -> None:
    queue_id, queue = only(_projectors(acme.resources("AWS::SQS::Queue")))
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    assert queue["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert queue["DeletionPolicy"] == "Retain"
    _, policy = only(_projectors(acme.resources("AWS::SQS::QueuePolicy")))
    assert policy["Properties"]["Queues"] == [{"Ref": queue_id}]
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_an_alarm_fires_on_any_dead_lettered_batch(acme: Synth) -> None:
    queue_id, _ = only(_projectors(acme.resources("AWS::SQS::Queue")))
    _, alarm = only(_projectors(acme.resources("AWS::CloudWatch::Alarm")))
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
    table_id, _ = log_table(acme)
    vector_table_id, _ = vector_table(acme)
    bucket_id, _ = only(acme.resources("AWS::S3::Bucket", {"VersioningConfiguration": Match.any_value()}))
    assert projector["Environment"]["Variables"] == {
        "AGENTMEM_BACKEND": "aws",
        "AGENTMEM_TENANT_ID": "acme",
        "AGENTMEM_PROCEDURAL_ENABLED": "true",
        "AGENTMEM_TABLE_NAME": {"Ref": table_id},
        "AGENTMEM_VECTOR_TABLE_NAME": {"Ref": vector_table_id},
        "AGENTMEM_BUCKET_NAME": {"Ref": bucket_id},
        "AGENTMEM_OPENSEARCH_URL": _endpoint_url(acme),
        "AGENTMEM_BEDROCK_EMBEDDING_MODEL": "amazon.titan-embed-text-v2:0",
        "AGENTMEM_BEDROCK_LLM_MODEL": LLM_PROFILE,
        "POWERTOOLS_SERVICE_NAME": "agentmem",
        "POWERTOOLS_METRICS_NAMESPACE": "agentmem",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "TIKTOKEN_CACHE_DIR": "/opt/tiktoken",
    }


def test_projector_reads_the_stream_and_writes_only_its_status_item_of_the_table(
    acme: Synth, projector: dict[str, Any]
) -> None:
    table_id, _ = log_table(acme)
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
        "bedrock:InvokeModel",
        # Skill library and catalogue items, re-read when their stream records arrive; never the log.
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:BatchGetItem",
        "dynamodb:PutItem",  # the projection status item only
        "dynamodb:UpdateItem",  # marking dependents stale, in the dependents index only
        "dynamodb:BatchWriteItem",  # the vector cache's own table only (test_vector_cache.py)
    }
    (cache,) = [s for s in statements if "dynamodb:BatchWriteItem" in s["Action"]]
    assert cache["Resource"] == {"Fn::GetAtt": [vector_table(acme)[0], "Arn"]}
    (status,) = [s for s in statements if s["Action"] == "dynamodb:PutItem"]
    assert status["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#acme#STATUS#*"]}}
    (marks,) = [s for s in statements if s["Action"] == "dynamodb:UpdateItem"]
    assert marks["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#acme#DEP#*"]}}
    (tombstones,) = [s for s in statements if s["Action"] == "dynamodb:BatchGetItem"]
    assert tombstones["Condition"] == {
        "ForAllValues:StringLike": {
            "dynamodb:LeadingKeys": ["T#acme#ERASED#*"]
        }  # erased subjects are skipped
    }
    stream_reads = [s for s in statements if "dynamodb:GetRecords" in s["Action"]]
    assert [s["Resource"] for s in stream_reads] == [{"Fn::GetAtt": [table_id, "StreamArn"]}]
    (item_reads,) = [s for s in statements if "dynamodb:GetItem" in s["Action"]]
    assert item_reads["Condition"] == {
        "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["SKILLS#*", "CATALOGUE#*", "CONV#*"]}
    }


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
        "dynamodb:BatchGetItem",  # the erasure tombstones only: an erased subject has no export
        "s3:GetObject",
        "s3:ListBucket",
        "bedrock:InvokeModel",
    }


def test_no_function_holds_a_service_wide_action(acme: Synth) -> None:
    for policy in acme.resources("AWS::IAM::Policy").values():
        for action in _actions(policy["Properties"]["PolicyDocument"]["Statement"]):
            assert not action.endswith("*"), action


def test_read_function_environment(acme: Synth, reader: dict[str, Any]) -> None:
    variables = reader["Environment"]["Variables"]
    assert variables["AGENTMEM_OPENSEARCH_URL"] == _endpoint_url(acme)
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


# --- OpenSearch Service domain ---------------------------------------------------------------------------

DOMAIN_ARN = "arn:<AWS::Partition>:es:<AWS::Region>:<AWS::AccountId>:domain/am-acme"


def _domain(synth: Synth) -> dict[str, Any]:
    _, domain = only(synth.resources("AWS::OpenSearchService::Domain"))
    return domain


def test_domain_runs_opensearch_2_19_named_after_the_tenant(acme: Synth) -> None:
    domain = _domain(acme)
    # The adapter's faiss cosinesimil index needs 2.19; a Serverless collection could not take its writes.
    assert domain["Properties"]["EngineVersion"] == "OpenSearch_2.19"
    assert domain["Properties"]["DomainName"] == "am-acme"
    assert domain["DeletionPolicy"] == domain["UpdateReplacePolicy"] == "Retain"
    # A version bump upgrades in place instead of replacing the domain (and its data).
    assert domain["UpdatePolicy"] == {"EnableVersionUpgrade": True}
    assert acme.resources("AWS::OpenSearchServerless::Collection") == {}


def test_domain_encrypts_at_rest_and_in_transit_and_takes_only_https(acme: Synth) -> None:
    props = _domain(acme)["Properties"]
    assert props["EncryptionAtRestOptions"] == {"Enabled": True}
    assert props["NodeToNodeEncryptionOptions"] == {"Enabled": True}
    assert props["DomainEndpointOptions"] == {
        "EnforceHTTPS": True,
        "TLSSecurityPolicy": "Policy-Min-TLS-1-2-PFS-2023-10",
    }


def test_domain_is_iam_only_outside_a_vpc(acme: Synth) -> None:
    props = _domain(acme)["Properties"]
    # No VPC (the functions run outside one), no fine-grained access control: the access policy decides.
    assert "VPCOptions" not in props
    assert "AdvancedSecurityOptions" not in props
    assert "CognitoOptions" not in props


def test_retained_stack_gets_two_zone_aware_production_nodes(acme: Synth) -> None:
    props = _domain(acme)["Properties"]
    assert props["ClusterConfig"] == {
        "InstanceType": "r7g.large.search",
        "InstanceCount": 2,
        "DedicatedMasterEnabled": False,
        "MultiAZWithStandbyEnabled": False,
        "ZoneAwarenessEnabled": True,
        "ZoneAwarenessConfig": {"AvailabilityZoneCount": 2},
    }
    assert props["EBSOptions"] == {"EBSEnabled": True, "VolumeType": "gp3", "VolumeSize": 20}


def _access_grants(synth: Synth) -> set[tuple[str, str, str]]:
    """(principal, action, resource) for every Allow in the domain access policy."""
    document = _domain(synth)["Properties"]["AccessPolicies"]
    grants = set()
    for statement in document["Statement"]:
        assert statement["Effect"] == "Allow"
        assert set(statement) == {"Effect", "Principal", "Action", "Resource"}  # no conditions to widen
        for principal in _as_list(statement["Principal"]["AWS"]):
            for action in _as_list(statement["Action"]):
                for resource in _as_list(statement["Resource"]):
                    grants.add((_render(principal), action, _render(resource)))
    return grants


def test_access_policy_names_only_the_projector_and_the_read_only_functions(
    acme: Synth, projector: dict[str, Any], reader: dict[str, Any]
) -> None:
    writer = "<{}.Arn>".format(projector["Role"]["Fn::GetAtt"][0])
    readers = ["<{}.Arn>".format(reader["Role"]["Fn::GetAtt"][0])]
    for description in ("procedural", "composer"):
        _, library = _function(acme, description)
        readers.append("<{}.Arn>".format(library["Properties"]["Role"]["Fn::GetAtt"][0]))
    eraser = "<{}.Arn>".format(_function(acme, "erasure")[1]["Properties"]["Role"]["Fn::GetAtt"][0])
    everything = f"{DOMAIN_ARN}/*"
    assert _access_grants(acme) == {
        # Erasure: refresh and delete by query on every generation's belief and passage indices, nothing else.
        *(
            (eraser, "es:ESHttpPost", f"{DOMAIN_ARN}/agentmem-{kind}-g*/{api}")
            for kind in ("beliefs", "observations", "events")
            for api in ("_refresh", "_delete_by_query")
        ),
        # The projector: exactly the paths its adapters send to, on the agentmem indexes only.
        *_projector_grants(writer),
        # The replay worker: the projector's paths on the generation indexes and aliases, no library index.
        *{
            grant
            for grant in _projector_grants(_role(acme, "ReplayWorker"))
            if "skills" not in grant[2] and "assets" not in grant[2]
        },
        # The operator role (replay, redrive, catch-up from a workstation): what the projector sends.
        *_projector_grants(_role(acme, "ReplayOperatorRole")),
        # Read (read, skills and compose functions): get anything, and POST only to search and count.
        *((read_only, "es:ESHttpGet", everything) for read_only in readers),
        *((read_only, "es:ESHttpHead", everything) for read_only in readers),
        *((read_only, "es:ESHttpPost", f"{DOMAIN_ARN}/*/_search") for read_only in readers),
        *((read_only, "es:ESHttpPost", f"{DOMAIN_ARN}/*/_count") for read_only in readers),
    }


def _role(synth: Synth, prefix: str) -> str:
    """`<LogicalId.Arn>` of the one IAM role whose logical id starts with `prefix`."""
    (logical,) = [name for name in synth.resources("AWS::IAM::Role") if name.startswith(prefix)]
    return f"<{logical}.Arn>"


def _projector_grants(writer: str) -> set[tuple[str, str, str]]:
    beliefs, observations, events = "agentmem-beliefs-g*", "agentmem-observations-g*", "agentmem-events-g*"
    generations = (beliefs, observations, events)
    libraries = ("agentmem-skills", "agentmem-assets")
    posts = [
        *(f"{index}/{api}" for index in (*generations, *libraries) for api in ("_bulk", "_search")),
        *(f"{index}/{api}" for index in generations for api in ("_refresh", "_delete_by_query")),
        f"{beliefs}/_count",
        f"{events}/_mget",
        f"{events}/_count",
        "_aliases",
    ]
    paths = {
        "es:ESHttpGet": ["agentmem-*", "_alias/agentmem-*"],
        "es:ESHttpHead": ["agentmem-*"],
        "es:ESHttpPut": [*generations, *libraries],
        "es:ESHttpPost": posts,
    }
    return {(writer, action, f"{DOMAIN_ARN}/{path}") for action, listed in paths.items() for path in listed}


def test_the_projector_may_not_touch_the_cluster_or_a_root_bulk(
    acme: Synth, projector: dict[str, Any]
) -> None:
    writer = "<{}.Arn>".format(projector["Role"]["Fn::GetAtt"][0])
    resources = {resource for principal, _, resource in _access_grants(acme) if principal == writer}
    for forbidden in ("_bulk", "_cluster/settings", "_delete_by_query", "*", "_all/_delete_by_query"):
        assert f"{DOMAIN_ARN}/{forbidden}" not in resources
    # With explicit indexes in bulk bodies refused, a bulk can reach only the index of its path.
    options = _domain(acme)["Properties"]["AdvancedOptions"]
    assert options == {"rest.action.multi.allow_explicit_index": "false"}


def test_no_principal_may_delete_or_patch_in_the_domain(acme: Synth) -> None:
    actions = {action for _, action, _ in _access_grants(acme)}
    assert actions <= {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost", "es:ESHttpPut"}


def test_function_roles_need_no_identity_statement_for_the_domain(acme: Synth) -> None:
    # The access policy grants the roles directly (same account); an identity grant could only widen it.
    for policy in acme.resources("AWS::IAM::Policy").values():
        for action in _actions(policy["Properties"]["PolicyDocument"]["Statement"]):
            assert not action.startswith(("es:", "aoss:")), action


def test_slow_and_error_logs_go_to_cloudwatch_kept_one_month(acme: Synth) -> None:
    options = _domain(acme)["Properties"]["LogPublishingOptions"]
    assert set(options) == {"SEARCH_SLOW_LOGS", "INDEX_SLOW_LOGS", "ES_APPLICATION_LOGS"}
    groups = acme.template.to_json()["Resources"]
    for option in options.values():
        assert option["Enabled"] is True
        group = groups[option["CloudWatchLogsLogGroupArn"]["Fn::GetAtt"][0]]
        assert group["Type"] == "AWS::Logs::LogGroup"
        assert group["Properties"]["RetentionInDays"] == 30
        assert group["DeletionPolicy"] == "Retain"


def test_domain_log_groups_rely_on_the_account_stacks_delivery_policy(acme: Synth) -> None:
    # One CloudWatch Logs resource policy per tenant would cap an account at ten tenants per region: the
    # account stack's covers every `agentmem-*` group (tests/infra/test_account.py).
    assert acme.resources("AWS::Logs::ResourcePolicy") == {}
    groups = acme.template.to_json()["Resources"]
    for option in _domain(acme)["Properties"]["LogPublishingOptions"].values():
        group = groups[option["CloudWatchLogsLogGroupArn"]["Fn::GetAtt"][0]]
        assert group["Properties"]["LogGroupName"].startswith("agentmem-acme-opensearch-")
    # Written as plain resources: the Domain construct's own log and access policies are custom-resource
    # Lambdas (and the retained stack has no custom resource at all).
    types = {resource["Type"] for resource in acme.template.to_json()["Resources"].values()}
    assert not [t for t in types if t.startswith("Custom::")]


@pytest.mark.parametrize(
    "tenant",
    ["acme", "a", "x" * 25, "x" * 26, "a" * 32, "-leading-hyphen", "0-digit-first-and-long-tenant-id"],
)
def test_domain_names_fit_opensearch_service_rules(tenant: str) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9-]{2,27}", domain_name(tenant))


def test_long_tenant_ids_sharing_a_prefix_get_distinct_domains() -> None:
    first, second = domain_name("a" * 31 + "b"), domain_name("a" * 31 + "c")
    assert first != second
    assert len(first) == len(second) == 28
    assert domain_name("x" * 25) == "am-" + "x" * 25  # fits: kept as is


def test_search_endpoint_output_is_the_url_the_functions_get(acme: Synth) -> None:
    assert acme.template.to_json()["Outputs"]["SearchEndpoint"]["Value"] == _endpoint_url(acme)
