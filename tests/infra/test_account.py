"""The account stack holds the per-account, per-region settings; tenant stacks side by side share nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from infra.account import ACCOUNT_STACK_NAME, build_account_app
from infra.config import TenantConfig, TenantConfigError, wants_account_stack
from infra.nag import add_checks
from infra.paths import CDK_JSON
from infra.stack import TenantStack
from tests.infra.conftest import only

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

# Resources an account holds one of per region (or a handful of): no tenant stack may create them.
ACCOUNT_LEVEL_TYPES = {"AWS::ApiGateway::Account", "AWS::Logs::ResourcePolicy"}
TOPIC = "arn:aws:sns:eu-west-1:123456789012:oncall"


def _context() -> dict[str, Any]:
    return {**json.loads(CDK_JSON.read_text())["context"], "aws:cdk:bundling-stacks": []}


def _report(outdir: Path) -> dict[str, Any]:
    (report,) = json.loads((outdir / "validation-report.json").read_text())["pluginReports"]
    return dict(report)


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> tuple[Template, Path]:
    outdir = tmp_path_factory.mktemp("cdk-account")
    app = cdk.App(context={**_context(), "account": "true"}, outdir=str(outdir))
    stack = build_account_app(app)
    app.synth()
    return Template.from_stack(stack), outdir


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Template], Path]:
    """Two tenants in one app, as two `cdk deploy`s into one account and region would place them."""
    outdir = tmp_path_factory.mktemp("cdk-two-tenants")
    app = cdk.App(context=_context(), outdir=str(outdir))
    configs = [
        TenantConfig(tenant="alpha"),
        TenantConfig(tenant="beta", alarm_topic_arn=TOPIC, removal_policy="destroy"),
    ]
    stacks = {config.tenant: TenantStack(app, config=config) for config in configs}
    add_checks(app)
    app.synth()
    return {name: Template.from_stack(stack) for name, stack in stacks.items()}, outdir


def _resources(template: Template) -> dict[str, dict[str, Any]]:
    resources: dict[str, dict[str, Any]] = template.to_json()["Resources"]
    return resources


def _is_literal(value: Any) -> bool:
    """A name the template writes itself: a string, or a join of strings and pseudo parameters (a Ref or
    GetAtt of a resource in the stack names that resource, which CloudFormation named uniquely)."""
    if isinstance(value, str):
        return True
    if isinstance(value, dict) and set(value) == {"Ref"}:
        return str(value["Ref"]).startswith("AWS::")
    if isinstance(value, dict) and set(value) == {"Fn::Join"}:
        return all(_is_literal(part) for part in value["Fn::Join"][1])
    return False


# Names scoped to a parent resource, unique within it only (an inline policy per role, a stage per API),
# and names that are not a resource's (the metric an alarm watches).
NOT_PHYSICAL = {
    ("AWS::IAM::Policy", "PolicyName"),
    ("AWS::ApiGateway::Stage", "StageName"),
    ("AWS::CloudWatch::Alarm", "MetricName"),
}


def _physical_names(template: Template) -> Iterator[tuple[str, str]]:
    """(resource type, name) for every name the template sets itself: unique per account and region."""
    for resource in _resources(template).values():
        for key, value in resource.get("Properties", {}).items():
            if key.endswith("Name") and (resource["Type"], key) not in NOT_PHYSICAL and _is_literal(value):
                yield resource["Type"], json.dumps(value, sort_keys=True)


def test_account_stack_sets_the_api_gateway_role_and_one_log_policy(account: tuple[Template, Path]) -> None:
    template, outdir = account
    role_id, role = only(dict(template.find_resources("AWS::IAM::Role")))
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "apigateway.amazonaws.com"}
    assert role["DeletionPolicy"] == "Retain"
    _, setting = only(dict(template.find_resources("AWS::ApiGateway::Account")))
    assert setting["Properties"]["CloudWatchRoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]}
    _, policy = only(dict(template.find_resources("AWS::Logs::ResourcePolicy")))
    assert policy["Properties"]["PolicyName"] == "agentmem-opensearch-logs"
    document = json.loads(
        "".join(part if isinstance(part, str) else "<" + part["Ref"] + ">" for part in
                policy["Properties"]["PolicyDocument"]["Fn::Join"][1])
    )  # fmt: skip
    (statement,) = document["Statement"]
    assert statement["Principal"] == {"Service": "es.amazonaws.com"}
    assert (
        statement["Resource"]
        == "arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:agentmem-*"
    )
    assert statement["Condition"]["ArnLike"] == {
        "aws:SourceArn": "arn:<AWS::Partition>:es:<AWS::Region>:<AWS::AccountId>:domain/am-*"
    }
    assert _report(outdir)["conclusion"] == "success"
    assert ACCOUNT_STACK_NAME == "agentmem-account"


def test_tenant_stacks_create_no_account_level_resource(tenants: tuple[dict[str, Template], Path]) -> None:
    templates, outdir = tenants
    for name, template in templates.items():
        types = {resource["Type"] for resource in _resources(template).values()}
        assert not types & ACCOUNT_LEVEL_TYPES, name
        for role in template.find_resources("AWS::IAM::Role").values():
            principals = json.dumps(role["Properties"]["AssumeRolePolicyDocument"])
            assert "apigateway.amazonaws.com" not in principals, name  # the CloudWatch role is the account's
        _, api = only(dict(template.find_resources("AWS::ApiGateway::RestApi")))
        assert api["Properties"]["Name"] == f"agentmem-{name}"
    assert _report(outdir)["conclusion"] == "success"


def test_two_tenants_share_no_physical_name(tenants: tuple[dict[str, Template], Path]) -> None:
    templates, _ = tenants
    alpha, beta = (set(_physical_names(templates[name])) for name in ("alpha", "beta"))
    assert len(alpha) >= 5  # domain, API, dashboard, log groups: the check is not vacuous
    assert alpha.isdisjoint(beta), alpha & beta


def test_opensearch_log_groups_are_under_the_account_policy_prefix(
    tenants: tuple[dict[str, Template], Path],
) -> None:
    templates, _ = tenants
    names = {
        resource["Properties"]["LogGroupName"]
        for resource in _resources(templates["alpha"]).values()
        if resource["Type"] == "AWS::Logs::LogGroup" and "LogGroupName" in resource["Properties"]
    }
    assert names == {f"agentmem-alpha-opensearch-{kind}" for kind in ("slow-search", "slow-index", "app")}


def test_an_existing_topic_receives_the_alarms(tenants: tuple[dict[str, Template], Path]) -> None:
    templates, _ = tenants
    beta = templates["beta"]
    assert dict(beta.find_resources("AWS::SNS::Topic")) == {}
    for alarm in beta.find_resources("AWS::CloudWatch::Alarm").values():
        assert alarm["Properties"]["AlarmActions"] == [TOPIC]


@pytest.mark.parametrize(
    ("value", "expected"), [(None, False), ("true", True), ("false", False), (True, True)]
)
def test_account_switch(value: Any, expected: bool) -> None:
    class Context:
        def try_get_context(self, key: str) -> Any:
            return value if key == "account" else None

    assert wants_account_stack(Context()) is expected


def test_account_switch_refuses_anything_else() -> None:
    class Context:
        def try_get_context(self, key: str) -> Any:
            return "maybe"

    with pytest.raises(TenantConfigError, match=r"-c account='maybe' must be true or false"):
        wants_account_stack(Context())
