"""The operator role: what a person running `agentmem replay --backend aws`, `agentmem redrive` and
`agentmem catch-up` from a workstation needs, and nothing more.

Assumable by principals of this account that are allowed `sts:AssumeRole` on it (the trust names the
account; an identity policy picks the people). With it an operator may start, watch and redrive
the replay state machine's executions; read the projector's dead-letter queue and the stream ranges
its messages name; read the log (events, tombstones, the libraries a redriven record re-indexes);
invoke the tenant's models; and, in the domain access policy, send what the projector sends to the
agentmem indexes (redrive and catch-up project into the live generation, as the projector does).
Like the projector, it marks the dependents of the beliefs it moves stale (an UpdateItem in the
dependents index's partitions, docs/stale-dependents.md). It may not delete an index, change the
cluster, or write any other item of the table, or the blob bucket."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.bedrock import BedrockModels
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge, arn_head

STREAM_READ_ACTIONS = ["dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"]
EXECUTION_ACTIONS = [
    "states:DescribeExecution",
    "states:StopExecution",
    "states:RedriveExecution",
    "states:ListMapRuns",
]


def grant_operator(
    scope: Construct,
    *,
    config: TenantConfig,
    storage: Storage,
    vectors: SearchDomain,
    models: BedrockModels,
    state_machine: sfn.StateMachine,
    dead_letters: sqs.IQueue,
) -> iam.Role:
    stack = cdk.Stack.of(scope)
    role = iam.Role(
        scope,
        "OperatorRole",
        assumed_by=iam.AccountRootPrincipal(),
        description=f"agentmem {config.tenant}: replay, redrive and catch-up from an operator's workstation",
        max_session_duration=cdk.Duration.hours(12),  # a replay is watched for hours
    )
    name = state_machine.state_machine_name
    executions = stack.format_arn(
        service="states", resource="execution", resource_name=f"{name}:*",
        arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
    )  # fmt: skip
    map_runs = stack.format_arn(
        service="states",
        resource="mapRun",
        resource_name=f"{name}/*",
        arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
    )
    iam.Grant.add_to_principal(
        grantee=role,
        actions=["states:StartExecution", "states:ListExecutions"],
        resource_arns=[state_machine.state_machine_arn],
    )
    iam.Grant.add_to_principal(grantee=role, actions=EXECUTION_ACTIONS, resource_arns=[executions])
    iam.Grant.add_to_principal(grantee=role, actions=["states:DescribeMapRun"], resource_arns=[map_runs])
    # The CLI finds the state machine's ARN among the stack's outputs.
    iam.Grant.add_to_principal(
        grantee=role, actions=["cloudformation:DescribeStacks"], resource_arns=[stack.stack_id]
    )
    dead_letters.grant_consume_messages(role)
    iam.Grant.add_to_principal(
        grantee=role, actions=STREAM_READ_ACTIONS, resource_arns=[storage.table.table_stream_arn or ""]
    )
    storage.grant_log_read(role)
    storage.grant_tombstone_read(role)
    storage.grant_library_read(role)
    storage.grant_dependents_mark(role)  # catch-up and redrive move live beliefs, as the projector does
    storage.grant_vector_cache(role)  # and embed through the projector's vector cache
    vectors.grant_write(role)
    models.grant_invoke(role, role)
    acknowledge(
        role,
        "AwsSolutions-IAM5",
        "Executions and Map Runs of this one state machine are named at run time (the ARN ends with the "
        "state machine's name and a wildcard for the execution).",
        *(f"Resource::{arn_head(role, 'states')}:{kind}:<{logical(stack, state_machine)}.Name>{sep}*"
          for kind, sep in (("execution", ":"), ("mapRun", "/"))),
    )  # fmt: skip
    return role


def logical(stack: cdk.Stack, construct: Construct) -> str:
    child = construct.node.default_child
    assert isinstance(child, cdk.CfnElement)
    return stack.get_logical_id(child)
