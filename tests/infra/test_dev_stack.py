"""A throwaway dev stack (`-c removalPolicy=destroy`): deletable in one command, and still nag-clean.
It also switches the procedural tier off (`-c procedural=false`)."""

from __future__ import annotations

import json

import pytest
from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, api_routes, log_table, only, synthesize

# Same worker as test_stack.py: see the note there.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

STATEFUL_TYPES = (
    "AWS::DynamoDB::Table",
    "AWS::S3::Bucket",
    "AWS::Logs::LogGroup",
    "AWS::SQS::Queue",
    "AWS::OpenSearchService::Domain",
)


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-dev"),
        tenant="dev-1",
        removalPolicy="destroy",
        inlineMaxBytes="1024",
        throttleRateLimit="5",
        bedrockLlmModel="amazon.nova-lite-v1:0",
        searchVolumeGib="12",
        procedural="false",
        composerLlm="rank",
        bedrockRerankModel="amazon.rerank-v1:0",
        retentionDays="30",
    )


def test_dev_stack_passes_cdk_nag(dev: Synth) -> None:
    (report,) = dev.validation_report["pluginReports"]
    assert report["conclusion"] == "success"
    assert report["violations"] == []


def test_dev_stack_also_acknowledges_its_single_zone_domain(dev: Synth) -> None:
    (report,) = dev.validation_report["pluginReports"]
    suppressed = {finding["ruleName"] for finding in report["suppressedViolations"]}
    # The retained stack's domain findings (test_stack.EXPECTED_ACKNOWLEDGED) plus zone awareness.
    domain_findings = {rule for rule in suppressed if rule.startswith("AwsSolutions-OS")}
    assert domain_findings == {"AwsSolutions-OS1", "AwsSolutions-OS3", "AwsSolutions-OS4", "AwsSolutions-OS7"}


def test_dev_stack_deletes_every_stateful_resource(dev: Synth) -> None:
    for resource_type in STATEFUL_TYPES:
        resources = dev.resources(resource_type)
        assert resources, resource_type
        assert {r["DeletionPolicy"] for r in resources.values()} == {"Delete"}, resource_type


def test_dev_stack_table_has_no_deletion_protection(dev: Synth) -> None:
    _, table = log_table(dev)
    assert table["Properties"]["DeletionProtectionEnabled"] is False


def test_dev_stack_empties_its_buckets_on_delete(dev: Synth) -> None:
    # CloudFormation cannot delete a non-empty bucket; CDK's auto-delete custom resource empties it first.
    assert len(dev.resources("Custom::S3AutoDeleteObjects")) == 3  # access logs, blobs, replay exports


def test_context_values_reach_the_function_and_the_stage(dev: Synth) -> None:
    functions = dev.resources("AWS::Lambda::Function", {"Handler": "handler.handler"})
    assert len(functions) == 6  # write, read, projector, compose, erasure, replay worker: no procedural tier
    for function in functions.values():
        assert function["Properties"]["Environment"]["Variables"]["AGENTMEM_TENANT_ID"] == "dev-1"
    _, write = only(
        dev.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("write path")})
    )
    assert write["Properties"]["Environment"]["Variables"]["AGENTMEM_INLINE_MAX_BYTES"] == "1024"
    _, stage = only(dev.resources("AWS::ApiGateway::Stage"))
    assert stage["Properties"]["MethodSettings"][0]["ThrottlingRateLimit"] == 5
    assert dev.stack.stack_name == "agentmem-dev-1"


def test_dev_stack_domain_is_one_small_node_in_one_zone(dev: Synth) -> None:
    _, domain = only(dev.resources("AWS::OpenSearchService::Domain"))
    props = domain["Properties"]
    assert props["DomainName"] == "am-dev-1"
    assert props["ClusterConfig"] == {
        "InstanceType": "t3.small.search",
        "InstanceCount": 1,
        "DedicatedMasterEnabled": False,
        # Standby is off: T3 instances cannot run it (and CDK's feature flag would turn it on).
        "MultiAZWithStandbyEnabled": False,
        "ZoneAwarenessEnabled": False,
    }
    # -c searchVolumeGib=12 (the dev default is 10).
    assert props["EBSOptions"] == {"EBSEnabled": True, "VolumeType": "gp3", "VolumeSize": 12}
    # Everything else is as strict as in production.
    assert props["EngineVersion"] == "OpenSearch_2.19"
    assert props["EncryptionAtRestOptions"] == props["NodeToNodeEncryptionOptions"] == {"Enabled": True}
    assert props["DomainEndpointOptions"]["EnforceHTTPS"] is True


def test_an_in_region_llm_is_granted_in_this_region_only(dev: Synth) -> None:
    # A foundation model id (no inference-profile prefix) needs no cross-region grant, so no wildcard either.
    for policy in dev.resources("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if statement["Action"] == "bedrock:InvokeModel":
                assert "*" not in json.dumps(statement["Resource"])
                assert "Condition" not in statement
    functions = dev.resources("AWS::Lambda::Function", {"Handler": "handler.handler"}).values()
    models = [
        f["Properties"]["Environment"]["Variables"].get("AGENTMEM_BEDROCK_LLM_MODEL") for f in functions
    ]
    # The write and erasure functions call no model; the projector, read, compose and replay worker
    # functions call the configured one.
    assert sorted(models, key=str) == [None, None, *["amazon.nova-lite-v1:0"] * 4]


def test_without_the_procedural_tier_there_is_no_function_route_or_skill_index(dev: Synth) -> None:
    assert not dev.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("procedural")})
    paths = {path for _, path in api_routes(dev)}
    procedural = (
        "/v1/functions",
        "/v1/guidance",
        *(f"/v1/library/{v}" for v in ("search", "review", "links", "import")),
    )
    assert not [p for p in paths if p.startswith(procedural)]
    assert "/v1/skills/{skill_id}/compose" in paths  # the composer stays
    stream = {
        k: m for k, m in dev.resources("AWS::Lambda::EventSourceMapping").items() if k.startswith("Projector")
    }
    _, mapping = only(stream)
    patterns = [f["Pattern"] for f in mapping["Properties"]["FilterCriteria"]["Filters"]]
    assert len(patterns) == 2 and not any("SKILLS#" in p for p in patterns)  # events and assets only
    # Every function is told, so the projector never creates the skill index (it does so only when on).
    for function in dev.resources("AWS::Lambda::Function", {"Handler": "handler.handler"}).values():
        assert function["Properties"]["Environment"]["Variables"]["AGENTMEM_PROCEDURAL_ENABLED"] == "false"


def test_the_composer_gets_its_llm_steps_and_the_rerank_model_it_may_call(dev: Synth) -> None:
    _, compose = only(
        dev.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("composer")})
    )
    env = compose["Properties"]["Environment"]["Variables"]
    assert env["AGENTMEM_COMPOSER_LLM"] == "rank"
    assert env["AGENTMEM_BEDROCK_RERANK_MODEL"] == {
        "Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":bedrock:", {"Ref": "AWS::Region"},
                          "::foundation-model/amazon.rerank-v1:0"]]
    }  # fmt: skip
    role = compose["Properties"]["Role"]["Fn::GetAtt"][0]
    _, policy = only(dev.resources("AWS::IAM::Policy", {"Roles": [{"Ref": role}]}))
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    (rerank,) = [s for s in statements if "bedrock:Rerank" in s["Action"]]
    assert rerank["Resource"] == "*"


def test_a_retention_expires_blobs_two_days_after_their_events(dev: Synth) -> None:
    _, bucket = only(dev.resources("AWS::S3::Bucket", {"VersioningConfiguration": Match.any_value()}))
    assert bucket["Properties"]["LifecycleConfiguration"]["Rules"][1:] == [
        {"Id": "BlobRetention", "Prefix": "blobs/", "ExpirationInDays": 32, "Status": "Enabled"}
    ]
    functions = dev.resources("AWS::Lambda::Function", {"Handler": "handler.handler"}).values()
    assert {f["Properties"]["Environment"]["Variables"]["AGENTMEM_RETENTION_DAYS"] for f in functions} == {
        "30"
    }
