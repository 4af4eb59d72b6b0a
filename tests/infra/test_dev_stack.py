"""A throwaway dev stack (`-c removalPolicy=destroy`): deletable in one command, and still nag-clean."""

from __future__ import annotations

import pytest

from tests.infra.conftest import Synth, only, synthesize

# Same worker as test_stack.py: see the note there.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

STATEFUL_TYPES = ("AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::Logs::LogGroup")


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-dev"),
        tenant="dev-1",
        removalPolicy="destroy",
        inlineMaxBytes="1024",
        throttleRateLimit="5",
    )


def test_dev_stack_passes_cdk_nag(dev: Synth) -> None:
    (report,) = dev.validation_report["pluginReports"]
    assert report["conclusion"] == "success"
    assert report["violations"] == []


def test_dev_stack_deletes_every_stateful_resource(dev: Synth) -> None:
    for resource_type in STATEFUL_TYPES:
        resources = dev.resources(resource_type)
        assert resources, resource_type
        assert {r["DeletionPolicy"] for r in resources.values()} == {"Delete"}, resource_type


def test_dev_stack_table_has_no_deletion_protection(dev: Synth) -> None:
    _, table = only(dev.resources("AWS::DynamoDB::Table"))
    assert table["Properties"]["DeletionProtectionEnabled"] is False


def test_dev_stack_empties_its_buckets_on_delete(dev: Synth) -> None:
    # CloudFormation cannot delete a non-empty bucket; CDK's auto-delete custom resource empties it first.
    assert len(dev.resources("Custom::S3AutoDeleteObjects")) == 2


def test_context_values_reach_the_function_and_the_stage(dev: Synth) -> None:
    _, function = only(dev.resources("AWS::Lambda::Function", {"Handler": "handler.handler"}))
    variables = function["Properties"]["Environment"]["Variables"]
    assert variables["AGENTMEM_TENANT_ID"] == "dev-1"
    assert variables["AGENTMEM_INLINE_MAX_BYTES"] == "1024"
    _, stage = only(dev.resources("AWS::ApiGateway::Stage"))
    assert stage["Properties"]["MethodSettings"][0]["ThrottlingRateLimit"] == 5
    assert dev.stack.stack_name == "agentmem-dev-1"
