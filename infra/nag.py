"""cdk-nag wiring. Every accepted finding is acknowledged next to the resource it is about, with a reason."""

from __future__ import annotations

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

# cdk-nag 3 reports through CDK policy validation; its acknowledgment ids carry the plugin name as a prefix.
PLUGIN_PREFIX = "AwsSolutions::"


def add_checks(app: cdk.Stage) -> None:
    """Run AwsSolutions on every synth. An unacknowledged error fails the synth (and so the tests)."""
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def acknowledge(scope: IConstruct, rule: str, reason: str, *findings: str) -> None:
    """Accept `rule` on `scope` and its children; with `findings`, accept only those (e.g. `Resource::*`).

    cdk-nag 3 has no prefix matching, so a multi-finding rule such as IAM5 must list each finding.
    """
    ids = [f"{rule}[{finding}]" for finding in findings] if findings else [rule]
    cdk.Validations.of(scope).acknowledge(
        *(cdk.Acknowledgment(id=f"{PLUGIN_PREFIX}{rule_id}", reason=reason) for rule_id in ids)
    )


def logical_ref(construct: IConstruct, attribute: str = "Arn") -> str:
    """How cdk-nag spells a GetAtt in a finding id, e.g. `<StorageBlobBucketA1B2C3D4.Arn>`."""
    child = construct.node.default_child
    target = child if isinstance(child, cdk.CfnElement) else construct
    assert isinstance(target, cdk.CfnElement), f"{construct.node.path} has no CloudFormation element"
    return f"<{cdk.Stack.of(construct).get_logical_id(target)}.{attribute}>"


def arn_head(scope: IConstruct, service: str) -> str:
    """`arn:<partition>:<service>:<region>:<account>` as cdk-nag spells it in a finding id: pseudo
    parameters for an environment-agnostic stack, the values for a stack with an `env`."""
    stack = cdk.Stack.of(scope)

    def part(value: str, pseudo: str) -> str:
        return f"<AWS::{pseudo}>" if cdk.Token.is_unresolved(value) else value

    region = part(stack.region, "Region") if service != "s3" else ""
    account = part(stack.account, "AccountId") if service != "s3" else ""
    return f"arn:{part(stack.partition, 'Partition')}:{service}:{region}:{account}"
